/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hashes of stacks (arrays of 64-bit return addresses) for the stack map.
 *
 * ft_hash_stack() is the one the map uses.  The others are kept so that
 * bench/stackmap_bench.c measures the choice again in every run:
 *
 *   ft_hash_jhash2   Bob Jenkins' lookup3 over 32-bit words, what the kernel
 *                    uses (jhash2): add/rotate/xor rounds per 12 bytes, one
 *                    long serial dependency chain.
 *   ft_hash_mx       multiply-xorshift per 64-bit word, serial: each word
 *                    waits for the previous multiply.
 *   ft_hash_mum2     wyhash-style: one 64x64->128 multiply per pair of
 *                    words, folded, summed.
 *   ft_hash_stack    NH (UMAC's universal hash) over the 32-bit halves of
 *                    each word, two words per SSE2 multiply, no chain
 *                    between words, then one 128-bit "mum" to mix the sums
 *                    down to 32 bits (ft_hash_stack_avx2: the same, four
 *                    words per instruction, what get_id uses on AVX2 CPUs).
 *
 * Why ft_hash_stack, measured (build/bench/stackmap_bench -c, thread CPU
 * time, 2-vCPU AMD EPYC VM at load 10-20, see bench/RESULTS.md), ns per
 * stack at depth 8/16/32/64:
 *
 *   jhash2          20.7  40.2  85.7  163.0
 *   mult-xorshift    6.4  16.1  38.2   94.4
 *   mum pairs        7.0  15.7  24.7   47.5
 *   ft_hash_stack    4.4   8.3   9.6   16.8
 *
 * 4.9x faster than jhash2 at depth 16 (9.7x at 64), and its distribution
 * is as good: the mean probes per lookup in a half-full
 * linear-probing table of realistic stacks (a shared call path, return
 * addresses a few bytes apart; user and kernel addresses; 8 seeds) are
 * 1.49-1.51, as for jhash2 and for an ideal uniform hash (1.50).
 *
 * All of these are pure functions: no state, no allocation, safe anywhere
 * (signal handlers included).
 */
#ifndef FTRAIL_HASH_H
#define FTRAIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* ---- lookup3 (jhash2), for comparison ---- */

#define FT_JHASH_INITVAL 0xdeadbeefu

static inline uint32_t ft_rol32(uint32_t x, unsigned int k)
{
	return (x << k) | (x >> (32 - k));
}

#define ft_jhash_mix(a, b, c)                                                                      \
	do {                                                                                       \
		a -= c;                                                                            \
		a ^= ft_rol32(c, 4);                                                               \
		c += b;                                                                            \
		b -= a;                                                                            \
		b ^= ft_rol32(a, 6);                                                               \
		a += c;                                                                            \
		c -= b;                                                                            \
		c ^= ft_rol32(b, 8);                                                               \
		b += a;                                                                            \
		a -= c;                                                                            \
		a ^= ft_rol32(c, 16);                                                              \
		c += b;                                                                            \
		b -= a;                                                                            \
		b ^= ft_rol32(a, 19);                                                              \
		a += c;                                                                            \
		c -= b;                                                                            \
		c ^= ft_rol32(b, 4);                                                               \
		b += a;                                                                            \
	} while (0)

#define ft_jhash_final(a, b, c)                                                                    \
	do {                                                                                       \
		c ^= b;                                                                            \
		c -= ft_rol32(b, 14);                                                              \
		a ^= c;                                                                            \
		a -= ft_rol32(c, 11);                                                              \
		b ^= a;                                                                            \
		b -= ft_rol32(a, 25);                                                              \
		c ^= b;                                                                            \
		c -= ft_rol32(b, 16);                                                              \
		a ^= c;                                                                            \
		a -= ft_rol32(c, 4);                                                               \
		b ^= a;                                                                            \
		b -= ft_rol32(a, 14);                                                              \
		c ^= b;                                                                            \
		c -= ft_rol32(b, 24);                                                              \
	} while (0)

/* lookup3 hashword() over n 32-bit words. */
static inline uint32_t ft_hash_jhash2(const uint32_t *k, uint32_t n, uint32_t initval)
{
	uint32_t a, b, c;

	a = b = c = FT_JHASH_INITVAL + (n << 2) + initval;
	while (n > 3) {
		a += k[0];
		b += k[1];
		c += k[2];
		ft_jhash_mix(a, b, c);
		n -= 3;
		k += 3;
	}
	switch (n) {
	case 3:
		c += k[2];
		/* fallthrough */
	case 2:
		b += k[1];
		/* fallthrough */
	case 1:
		a += k[0];
		ft_jhash_final(a, b, c);
		break;
	default:
		break;
	}
	return c;
}

/* ---- serial multiply-xorshift, for comparison ---- */

static inline uint32_t ft_hash_mx(const uint64_t *w, uint32_t n, uint64_t seed)
{
	uint64_t h = seed ^ ((uint64_t)n * 0x9E3779B97F4A7C15ull);

	for (uint32_t i = 0; i < n; i++) {
		h ^= w[i];
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	h *= 0x94d049bb133111ebull;
	h ^= h >> 32;
	return (uint32_t)h;
}

/* ---- the map's hash ---- */

#define FT_HASH_P0 0xa0761d6478bd642full
#define FT_HASH_P1 0xe7037ed1a0b428dbull
#define FT_HASH_P2 0x8ebc6af09c88c6e3ull
#define FT_HASH_P3 0x589965cc75374cc3ull

/* 64x64 -> 128 multiply, folded: the high half xored into the low half. */
static inline uint64_t ft_mum(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/*
 * wyhash-style: each pair of words goes through one 64x64->128 multiply,
 * folded, and the folded values are summed.  Kept for comparison.
 */
static inline uint32_t ft_hash_mum2(const uint64_t *w, uint32_t n, uint64_t seed)
{
	uint64_t k0 = seed ^ FT_HASH_P0, k1 = seed ^ FT_HASH_P1;
	uint64_t acc0 = 0, acc1 = 0, h;
	uint32_t i = 0;

	for (; i + 4 <= n; i += 4) {
		acc0 += ft_mum(w[i] ^ k0, w[i + 1] ^ k1);
		acc1 += ft_mum(w[i + 2] ^ (k0 + FT_HASH_P2), w[i + 3] ^ (k1 + FT_HASH_P3));
		k0 += 2 * FT_HASH_P2;
		k1 += 2 * FT_HASH_P3;
	}
	if (i + 2 <= n) {
		acc0 += ft_mum(w[i] ^ k0, w[i + 1] ^ k1);
		k0 += FT_HASH_P2;
		k1 += FT_HASH_P3;
		i += 2;
	}
	if (i < n)
		acc1 += ft_mum(w[i] ^ k0, k1 ^ FT_HASH_P0);
	h = ft_mum(acc0 ^ seed ^ FT_HASH_P3, acc1 ^ ((uint64_t)n << 32) ^ FT_HASH_P1);
	h = ft_mum(h, seed ^ FT_HASH_P2);
	return (uint32_t)(h ^ (h >> 32));
}

/* Words a stack hash takes at most, and the size of its key table. */
#define FT_HASH_MAX_WORDS 64
#define FT_HASH_NKEYS (FT_HASH_MAX_WORDS + 2)

/* Derive the per-position keys of ft_hash_stack() from a seed. */
static inline void ft_hash_keys(uint64_t *keys, uint64_t seed)
{
	for (uint64_t i = 0; i < FT_HASH_NKEYS; i++)
		keys[i] = ft_mum(seed + (i + 1) * FT_HASH_P0, FT_HASH_P1 ^ (seed >> 7)) ^ seed;
}

/*
 * The map's hash: NH, UMAC's universal hash, in its original 32-bit form.
 * Each 64-bit return address is a pair of 32-bit halves (lo, hi); with a
 * random per-position key k (ft_hash_keys(), from the map's seed), word i
 * contributes (lo + k_lo) * (hi + k_hi) mod 2^32 factors, a 32x32->64
 * product, summed mod 2^64 in two lanes (even and odd words), so the same
 * frames in another order hash differently.  Both factors are below 2^32,
 * so a product never vanishes mod 2^64 (the weakness of NH over whole
 * 64-bit words, where a difference in the top bits could).  The two sums
 * are then mixed down to 32 bits by one 64x64->128 multiply (the wyhash
 * "mum").  n <= FT_HASH_MAX_WORDS.
 *
 * On x86-64 two words go through one SSE2 pmuludq (the baseline ISA, no
 * dispatch): one fused load+add, a shift, the multiply and an add per two
 * words, about 1 cycle per word, against 3 instructions per word for the
 * scalar form, which other architectures use (the same function: a block
 * is only shared between processes of one machine).
 *
 * The loops take 8 words (16 with AVX2) per turn and then one block for
 * each remaining bit of n: the branches depend on n alone, so a caller
 * whose depth repeats predicts every one of them, and a depth-16 stack
 * costs no loop turns.
 */
#if defined(__SSE2__)
#include <emmintrin.h>

/* acc += NH of the two words at w (keys k): lane 0 the even word, 1 the odd. */
static inline __m128i ft_nh2(__m128i acc, const uint64_t *w, const uint64_t *k)
{
	__m128i x = _mm_add_epi32(_mm_loadu_si128((const __m128i *)w),
				  _mm_loadu_si128((const __m128i *)k));

	return _mm_add_epi64(acc, _mm_mul_epu32(x, _mm_srli_epi64(x, 32)));
}
#endif

/* NH of one word: (lo + k_lo) * (hi + k_hi), 32x32 -> 64. */
static inline uint64_t ft_nh1(uint64_t w, uint64_t k)
{
	return (uint64_t)((uint32_t)w + (uint32_t)k) *
	       (uint32_t)((uint32_t)(w >> 32) + (uint32_t)(k >> 32));
}

static inline uint32_t ft_hash_stack(const uint64_t *w, uint32_t n, const uint64_t *k)
{
	uint64_t a0, a1, h;
	uint32_t i = 0;
#if defined(__SSE2__)
	__m128i acc0 = _mm_set_epi64x(0, (long long)((uint64_t)n * FT_HASH_P2));
	__m128i acc1 = _mm_setzero_si128();

	for (; i + 8 <= n; i += 8) {
		acc0 = ft_nh2(acc0, w + i, k + i);
		acc1 = ft_nh2(acc1, w + i + 2, k + i + 2);
		acc0 = ft_nh2(acc0, w + i + 4, k + i + 4);
		acc1 = ft_nh2(acc1, w + i + 6, k + i + 6);
	}
	if (n & 4) {
		acc0 = ft_nh2(acc0, w + i, k + i);
		acc1 = ft_nh2(acc1, w + i + 2, k + i + 2);
		i += 4;
	}
	if (n & 2) {
		acc0 = ft_nh2(acc0, w + i, k + i);
		i += 2;
	}
	acc0 = _mm_add_epi64(acc0, acc1);
	a0 = (uint64_t)_mm_cvtsi128_si64(acc0);
	a1 = (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(acc0, acc0));
#else
	a0 = (uint64_t)n * FT_HASH_P2;
	a1 = 0;
	for (; i + 2 <= n; i += 2) {
		a0 += ft_nh1(w[i], k[i]);
		a1 += ft_nh1(w[i + 1], k[i + 1]);
	}
#endif
	if (n & 1) /* the last word of an odd count, in the even lane */
		a0 += ft_nh1(w[i], k[i]);
	h = ft_mum(a0 ^ FT_HASH_P3, a1 ^ FT_HASH_P1);
	return (uint32_t)(h ^ (h >> 32));
}

#if defined(__x86_64__)
#include <immintrin.h>

/*
 * Lane masks for the last 1-3 words of a stack in a 4-word vector: load 4
 * entries from ft_tail_mask4 + 4 - (n & 3), and lane j is all ones for the
 * words that exist (j < n & 3).
 */
static const int64_t ft_tail_mask4[8] __attribute__((aligned(64))) = { -1, -1, -1, -1, 0, 0, 0, 0 };

/* acc += NH of the four words at w (keys k): lanes 0 and 2 even words, 1 and 3 odd. */
__attribute__((target("avx2"))) static inline __m256i ft_nh4(__m256i acc, const uint64_t *w,
							     const uint64_t *k)
{
	__m256i x = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)w),
				     _mm256_loadu_si256((const __m256i *)k));

	return _mm256_add_epi64(acc, _mm256_mul_epu32(x, _mm256_srli_epi64(x, 32)));
}

/*
 * ft_hash_stack() with AVX2 (four words per instruction): the same function,
 * bit for bit (lanes 0 and 2 sum the even words, 1 and 3 the odd ones).
 * One jump on the number of whole 4-word blocks enters a straight run of
 * blocks at the right one (no loop counter, no test per block; a caller
 * whose depth repeats predicts the jump), and the last n & 3 words go
 * through one masked load, which never touches the memory past w[n) (a
 * masked-off lane does not fault).  n <= FT_HASH_MAX_WORDS.  Only for
 * callers that checked the CPU (the stack map does, once).
 */
__attribute__((target("avx2"))) static inline uint32_t
ft_hash_stack_avx2(const uint64_t *w, uint32_t n, const uint64_t *k)
{
	__m256i acc = _mm256_set_epi64x(0, 0, 0, (long long)((uint64_t)n * FT_HASH_P2));
	__m256i acc2 = _mm256_setzero_si256(); /* two sums: a shorter dependency chain */
	__m128i a;
	uint64_t h;

	__asm__("" : "+x"(acc2)); /* zeroed once here, not at each entry of the jump */
	switch (n >> 2) {
	case 16:
		acc2 = ft_nh4(acc2, w + 60, k + 60);
		/* fallthrough */
	case 15:
		acc = ft_nh4(acc, w + 56, k + 56);
		/* fallthrough */
	case 14:
		acc2 = ft_nh4(acc2, w + 52, k + 52);
		/* fallthrough */
	case 13:
		acc = ft_nh4(acc, w + 48, k + 48);
		/* fallthrough */
	case 12:
		acc2 = ft_nh4(acc2, w + 44, k + 44);
		/* fallthrough */
	case 11:
		acc = ft_nh4(acc, w + 40, k + 40);
		/* fallthrough */
	case 10:
		acc2 = ft_nh4(acc2, w + 36, k + 36);
		/* fallthrough */
	case 9:
		acc = ft_nh4(acc, w + 32, k + 32);
		/* fallthrough */
	case 8:
		acc2 = ft_nh4(acc2, w + 28, k + 28);
		/* fallthrough */
	case 7:
		acc = ft_nh4(acc, w + 24, k + 24);
		/* fallthrough */
	case 6:
		acc2 = ft_nh4(acc2, w + 20, k + 20);
		/* fallthrough */
	case 5:
		acc = ft_nh4(acc, w + 16, k + 16);
		/* fallthrough */
	case 4:
		acc2 = ft_nh4(acc2, w + 12, k + 12);
		/* fallthrough */
	case 3:
		acc = ft_nh4(acc, w + 8, k + 8);
		/* fallthrough */
	case 2:
		acc2 = ft_nh4(acc2, w + 4, k + 4);
		/* fallthrough */
	case 1:
		acc = ft_nh4(acc, w + 0, k + 0);
		/* fallthrough */
	default:
		break;
	}
	if (n & 3) { /* words past n: zero in both factors, so a zero product */
		uint32_t i = n & ~3u;
		__m256i m = _mm256_loadu_si256((const __m256i *)(ft_tail_mask4 + 4 - (n & 3)));
		__m256i x = _mm256_add_epi32(
			_mm256_maskload_epi64((const long long *)(w + i), m),
			_mm256_and_si256(m, _mm256_loadu_si256((const __m256i *)(k + i))));

		acc2 = _mm256_add_epi64(acc2, _mm256_mul_epu32(x, _mm256_srli_epi64(x, 32)));
	}
	acc = _mm256_add_epi64(acc, acc2);
	a = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
	h = ft_mum((uint64_t)_mm_cvtsi128_si64(a) ^ FT_HASH_P3,
		   (uint64_t)_mm_extract_epi64(a, 1) ^ FT_HASH_P1);
	return (uint32_t)(h ^ (h >> 32));
}
#endif

/* ---- names ---- */

/*
 * FNV-1a, 64 bit, over n bytes of s: the string hash of the readers' tables
 * (folded stacks, speedscope frames).  Not seeded: table keys there are
 * names from a trace, and a skewed input only costs probe length.
 */
static inline uint64_t ft_hash_fnv1a(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* ---- integer keys ---- */

/*
 * splitmix64's finaliser: a bijective mix of a 64-bit key (ids, thread ids,
 * addresses, or a hash computed elsewhere) so that the low bits index an
 * open-addressing table well.  Not seeded.
 */
static inline uint64_t ft_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

#endif
