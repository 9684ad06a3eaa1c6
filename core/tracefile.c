// SPDX-License-Identifier: GPL-2.0
/*
 * The trace file: writer and reader of the section format in tracefile.h.
 *
 * Writer concurrency: several drain threads call ft_writer_add() at once.
 * Compression runs outside any lock, in the calling thread; only the append
 * (section header + payload) is serialised by w->lock, so sections never
 * interleave and each lands whole.  w->bytes is updated under the same lock
 * and read by ft_writer_bytes() with a relaxed atomic load (a statistic: it
 * may lag a concurrent append, never tear).
 *
 * Reader robustness: every size in the file is checked against the file size
 * before use; a section that runs past the end of a file without END is the
 * file being cut short (recorder killed): the reader keeps what is complete
 * and ft_reader_truncated() says so.  Compressed payloads are inflated by
 * streaming into a buffer that grows only as real output appears, bounded by
 * the declared raw size, so a hostile header cannot make us allocate memory
 * the data does not back.
 */
#include "core/tracefile.h"
#include "core/outfile.h"
#include "core/stackmap.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define FILE_HDR_SIZE 24u
#define SHDR_SIZE 40u /* struct ft_section_hdr on disk */

struct ft_writer {
	struct ft_outfile out; /* TARGET.partial until closed (core/outfile.h) */
	int fd;
	pthread_mutex_t lock; /* serialises appends and bytes */
	uint64_t bytes;
	int failed; /* a write failed: later adds fail too (the file is torn) */
	int saved_errno;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* zlib's CRC-32 of len bytes, continuing from crc (0 to start). */
static uint32_t crc(uint32_t c, const void *p, size_t len)
{
	const unsigned char *b = p;

	/* zlib takes uInt lengths: feed large payloads in pieces */
	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;

		c = (uint32_t)crc32(c, b, n);
		b += n;
		len -= n;
	}
	return c;
}

/*
 * The header's own checksum: CRC-32 of the section's file offset (8 bytes,
 * little endian) and the header's first 36 bytes.  Binding the offset makes
 * a section moved, duplicated or left out (the ones after it shift) fail
 * its check, not only one whose bytes changed.
 */
static uint32_t shdr_crc(const unsigned char *b, uint64_t off)
{
	unsigned char o[8];

	put64(o, off);
	return crc(crc(0, o, sizeof(o)), b, SHDR_SIZE - 4);
}

/* Encode a section header at file offset off in its on-disk (little-endian) form. */
static void encode_shdr(unsigned char *b, uint64_t off, uint32_t type, uint32_t flags, uint64_t id,
			uint64_t disk, uint64_t raw, uint32_t payload_crc)
{
	put32(b, type);
	put32(b + 4, flags);
	put64(b + 8, id);
	put64(b + 16, disk);
	put64(b + 24, raw);
	put32(b + 32, payload_crc);
	put32(b + 36, shdr_crc(b, off));
}

struct ft_writer *ft_writer_open(const char *path, int compress_level, char *err, size_t errlen)
{
	unsigned char hdr[FILE_HDR_SIZE];
	struct ft_writer *w;

	(void)compress_level;
	w = calloc(1, sizeof(*w));
	if (!w) {
		ft_seterr(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (ft_outfile_create(&w->out, path, 0600, err, errlen) < 0) {
		int e = errno;

		free(w);
		errno = e;
		return NULL;
	}
	w->fd = w->out.fd;
	memcpy(hdr, FT_FILE_MAGIC, 8);
	put32(hdr + 8, FT_FILE_VERSION);
	put32(hdr + 12, FILE_HDR_SIZE);
	put64(hdr + 16, 0);
	if (write_all(w->fd, hdr, sizeof(hdr)) < 0) {
		int e = errno;

		ft_seterr(err, errlen, "cannot write %s: %s", w->out.tmp ? w->out.tmp : path,
			  strerror(e));
		ft_outfile_abort(&w->out, 0);
		free(w);
		errno = e;
		return NULL;
	}
	w->bytes = sizeof(hdr);
	pthread_mutex_init(&w->lock, NULL);
	return w;
}

/* Append header + payload under the lock.  0 or -1 with errno. */
static int append(struct ft_writer *w, uint32_t type, uint32_t flags, uint64_t id, const void *data,
		  size_t disk, size_t raw)
{
	unsigned char sh[SHDR_SIZE];
	uint32_t pcrc = crc(0, data, disk); /* outside the lock */
	int ret = 0;

	pthread_mutex_lock(&w->lock);
	/* the header's checksum binds its offset: known only under the lock */
	encode_shdr(sh, w->bytes, type, flags, id, disk, raw, pcrc);
	if (w->failed) {
		errno = w->saved_errno;
		ret = -1;
	} else if (write_all(w->fd, sh, sizeof(sh)) < 0 ||
		   (disk && write_all(w->fd, data, disk) < 0)) {
		w->failed = 1;
		w->saved_errno = errno;
		ret = -1;
	} else {
		__atomic_store_n(&w->bytes, w->bytes + sizeof(sh) + disk, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&w->lock);
	return ret;
}

int ft_writer_add(struct ft_writer *w, uint32_t type, uint64_t id, const void *data, size_t len,
		  int compress)
{
	void *z = NULL;
	size_t zlen = 0;
	int ret;

	if (!w || type == FT_SEC_END || type >= FT_SEC_MAX || (len && !data) ||
	    (uint64_t)len > FT_SECTION_MAX_RAW) {
		errno = EINVAL;
		return -1;
	}
	if (compress && len >= 64) {
		size_t bound = ZSTD_compressBound(len);

		z = malloc(bound);
		if (!z) {
			errno = ENOMEM;
			return -1;
		}
		zlen = ZSTD_compress(z, bound, data, len,
				     compress > 0 && compress < 20 ? compress : 3);
		if (ZSTD_isError(zlen) || zlen >= len) {
			free(z);
			z = NULL;
		}
	}
	if (z)
		ret = append(w, type, FT_SF_ZSTD, id, z, zlen, len);
	else
		ret = append(w, type, 0, id, data, len, len);
	free(z);
	return ret;
}

uint64_t ft_writer_bytes(const struct ft_writer *w)
{
	return __atomic_load_n(&w->bytes, __ATOMIC_RELAXED);
}

int ft_writer_close(struct ft_writer *w, char *err, size_t errlen)
{
	int ret;

	if (!w)
		return 0;
	ret = append(w, FT_SEC_END, 0, 0, NULL, 0, 0);
	if (ret < 0) {
		ft_seterr(err, errlen, "cannot write %s: %s", w->out.tmp ? w->out.tmp : w->out.path,
			  strerror(errno));
		ft_outfile_abort(&w->out, 1);
	} else {
		ret = ft_outfile_commit(&w->out, err, errlen);
	}
	pthread_mutex_destroy(&w->lock);
	free(w);
	return ret;
}

void ft_writer_abort(struct ft_writer *w, int keep)
{
	if (!w)
		return;
	ft_outfile_abort(&w->out, keep);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

const char *ft_writer_partial_path(const struct ft_writer *w)
{
	return w->out.tmp ? w->out.tmp : w->out.path;
}

int ft_writer_replaced_stale(const struct ft_writer *w)
{
	return w->out.replaced;
}

/* ---- reader ---- */

struct meta_kv {
	char *key;
	char *val;
};

struct ft_reader {
	int fd;
	char *path;
	uint64_t file_size;
	int truncated;
	char **warn; /* cut short, corrupt sections: one line each */
	size_t nr_warn;
	struct ft_section *secs;
	size_t nr, cap;
	/* where indexing stopped; final: at END or a corrupt header (no more) */
	uint64_t scan_off;
	int scan_final;
	/* META, parsed on first ft_reader_meta() */
	int meta_loaded;
	char *meta_buf;
	struct meta_kv *kv;
	size_t nr_kv;
};

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

static const char *sec_name(uint32_t type)
{
	static const char *const names[FT_SEC_MAX] = {
		"END",	    "META",	"MODULES",  "FUNCS",	"SYMTAB",
		"KALLSYMS", "STACKMAP", "UDATA",    "KFORMATS", "KDATA",
		"TASKS",    "UFORMATS", "SNAPSHOT", "ARGSPEC",	"KSNAP",
	};

	return type < FT_SEC_MAX ? names[type] : "?";
}

static int __attribute__((format(printf, 2, 3))) add_warn(struct ft_reader *r, const char *fmt, ...)
{
	char **n = realloc(r->warn, (r->nr_warn + 1) * sizeof(*n));
	va_list ap;
	int ret;

	if (!n)
		return -1;
	r->warn = n;
	va_start(ap, fmt);
	ret = vasprintf(&r->warn[r->nr_warn], fmt, ap);
	va_end(ap);
	if (ret < 0)
		return -1;
	r->nr_warn++;
	return 0;
}

/*
 * Check a section's payload against its CRC, reading it in pieces.
 * Returns 0 when it matches, 1 on a mismatch, -1 on a read error.  Done
 * once at open, so every reader sees only sound sections; the cost is one
 * CRC pass over the file (zlib's crc32 runs at several GB/s, far above
 * inflating and formatting the same bytes).
 */
static int check_payload(struct ft_reader *r, const struct ft_section *s)
{
	unsigned char buf[64 * 1024];
	uint64_t done = 0;
	uint32_t c = 0;

	while (done < s->disk_size) {
		size_t n = s->disk_size - done < sizeof(buf) ? (size_t)(s->disk_size - done)
							     : sizeof(buf);

		if (read_at(r->fd, buf, n, s->offset + done) < 0)
			return -1;
		c = crc(c, buf, n);
		done += n;
	}
	return c == s->crc ? 0 : 1;
}

/*
 * Index the sections from offset from to the end of the file as it is
 * (r->file_size): ft_reader_open(), then ft_reader_extend() from where the
 * last call stopped.  *seen_end, *corrupt_hdr: why it stopped before the
 * end.  0, or -1 with err.
 */
static int scan(struct ft_reader *r, uint64_t from, int *seen_end, int *corrupt_hdr, char *err,
		size_t errlen)
{
	uint64_t off;

	for (off = from; off < r->file_size;) {
		unsigned char sh[SHDR_SIZE];
		struct ft_section s;

		if (r->file_size - off < sizeof(sh)) {
			r->truncated = 1; /* cut inside a section header */
			break;
		}
		if (read_at(r->fd, sh, sizeof(sh), off) < 0) {
			ft_seterr(err, errlen, "%s: read error at offset %llu: %s", r->path,
				  (unsigned long long)off, strerror(errno));
			goto fail;
		}
		if (get32(sh + 36) != shdr_crc(sh, off)) {
			/*
			 * Its sizes cannot be trusted, so neither can the place
			 * of the next header: what comes before is all we read.
			 */
			if (add_warn(r,
				     "%s: corrupt section header at offset %llu (checksum "
				     "mismatch): reading only the %zu sections before it",
				     r->path, (unsigned long long)off, r->nr) < 0)
				goto oom;
			*corrupt_hdr = 1;
			break;
		}
		s.type = get32(sh);
		s.flags = get32(sh + 4);
		s.id = get64(sh + 8);
		s.disk_size = get64(sh + 16);
		s.raw_size = get64(sh + 24);
		s.crc = get32(sh + 32);
		s.offset = off + sizeof(sh);
		if (s.type >= FT_SEC_MAX) {
			ft_seterr(err, errlen, "%s: unknown section type %u at offset %llu",
				  r->path, s.type, (unsigned long long)off);
			goto fail;
		}
		if (s.flags & ~FT_SF_ZSTD) {
			ft_seterr(err, errlen,
				  "%s: %s section at offset %llu has unknown flags 0x%x", r->path,
				  sec_name(s.type), (unsigned long long)off, s.flags);
			goto fail;
		}
		if (s.raw_size > FT_SECTION_MAX_RAW ||
		    (!(s.flags & FT_SF_ZSTD) && s.raw_size != s.disk_size)) {
			ft_seterr(err, errlen,
				  "%s: %s section at offset %llu has bad sizes (%llu/%llu)",
				  r->path, sec_name(s.type), (unsigned long long)off,
				  (unsigned long long)s.disk_size, (unsigned long long)s.raw_size);
			goto fail;
		}
		if (s.disk_size > r->file_size - s.offset) {
			r->truncated = 1; /* payload cut short */
			break;
		}
		if (s.type == FT_SEC_END) {
			if (s.disk_size || s.offset != r->file_size) {
				ft_seterr(err, errlen,
					  "%s: data after the END section (offset %llu)", r->path,
					  (unsigned long long)s.offset);
				goto fail;
			}
			*seen_end = 1;
			break;
		}
		off = s.offset + s.disk_size;
		switch (check_payload(r, &s)) {
		case 0:
			break;
		case 1:
			/* a corrupt payload: its header is sound, the rest can be read */
			if (add_warn(r,
				     "%s: corrupt %s section (id %llu) at offset %llu "
				     "(checksum mismatch): skipped",
				     r->path, sec_name(s.type), (unsigned long long)s.id,
				     (unsigned long long)(s.offset - sizeof(sh))) < 0)
				goto oom;
			continue;
		default:
			ft_seterr(err, errlen, "%s: read error at offset %llu: %s", r->path,
				  (unsigned long long)s.offset, strerror(errno));
			goto fail;
		}
		if (FT_GROW(r->secs, r->cap, r->nr + 1, 64))
			goto oom;
		r->secs[r->nr++] = s;
	}
	r->scan_off = off;
	r->scan_final = *seen_end || *corrupt_hdr;
	return 0;
oom:
	ft_seterr(err, errlen, "%s: out of memory", r->path);
	return -1;
fail:
	return -1;
}

struct ft_reader *ft_reader_open(const char *path, char *err, size_t errlen)
{
	unsigned char hdr[FILE_HDR_SIZE];
	struct ft_reader *r;
	struct stat st;
	uint32_t hsize;
	int fd, seen_end = 0, corrupt_hdr = 0;

	fd = ft_open_regular(path, &st, err, errlen);
	if (fd < 0)
		return NULL;
	if ((uint64_t)st.st_size < FILE_HDR_SIZE || read_at(fd, hdr, sizeof(hdr), 0) < 0) {
		ft_seterr(err, errlen, "%s: truncated file header (%lld bytes)", path,
			  (long long)st.st_size);
		close(fd);
		return NULL;
	}
	if (memcmp(hdr, FT_FILE_MAGIC, 8)) {
		ft_seterr(err, errlen, "%s: not an ftrail trace file (bad magic)", path);
		close(fd);
		return NULL;
	}
	if (get32(hdr + 8) != FT_FILE_VERSION) {
		ft_seterr(err, errlen,
			  "%s: unsupported trace file version %u (this ftrail reads %u)", path,
			  get32(hdr + 8), FT_FILE_VERSION);
		close(fd);
		return NULL;
	}
	hsize = get32(hdr + 12);
	if (hsize < FILE_HDR_SIZE || hsize > (uint64_t)st.st_size || hsize > 4096) {
		ft_seterr(err, errlen, "%s: bad file header size %u", path, hsize);
		close(fd);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path))) {
		free(r);
		close(fd);
		ft_seterr(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	r->fd = fd;
	r->file_size = (uint64_t)st.st_size;
	if (scan(r, hsize, &seen_end, &corrupt_hdr, err, errlen) < 0)
		goto fail;
	if (!seen_end) {
		r->truncated = 1;
		if (!corrupt_hdr &&
		    add_warn(r, "%s was cut short (no END section): reading what is complete",
			     path) < 0)
			goto oom;
	}
	return r;
oom:
	ft_seterr(err, errlen, "%s: out of memory", path);
fail:
	ft_reader_close(r);
	return NULL;
}

int ft_reader_extend(struct ft_reader *r, char *err, size_t errlen)
{
	size_t before = r->nr;
	int seen_end = 0, corrupt_hdr = 0, meta = 0;
	struct stat st;

	if (r->scan_final)
		return 0;
	if (fstat(r->fd, &st) < 0) {
		ft_seterr(err, errlen, "%s: %s", r->path, strerror(errno));
		return -1;
	}
	if ((uint64_t)st.st_size <= r->file_size)
		return 0;
	r->file_size = (uint64_t)st.st_size;
	if (scan(r, r->scan_off, &seen_end, &corrupt_hdr, err, errlen) < 0)
		return -1;
	if (seen_end)
		r->truncated = 0;
	for (size_t i = before; i < r->nr; i++)
		meta |= r->secs[i].type == FT_SEC_META;
	if (meta && r->meta_loaded) {
		/* parsed again at the next ft_reader_meta(), new values last */
		free(r->kv);
		free(r->meta_buf);
		r->kv = NULL;
		r->meta_buf = NULL;
		r->nr_kv = 0;
		r->meta_loaded = 0;
	}
	return (int)(r->nr - before > INT32_MAX ? INT32_MAX : r->nr - before);
}

void ft_reader_close(struct ft_reader *r)
{
	if (!r)
		return;
	close(r->fd);
	for (size_t i = 0; i < r->nr_warn; i++)
		free(r->warn[i]);
	free(r->warn);
	free(r->secs);
	free(r->kv);
	free(r->meta_buf);
	free(r->path);
	free(r);
}

int ft_reader_truncated(const struct ft_reader *r)
{
	return r->truncated;
}

size_t ft_reader_nr_warnings(const struct ft_reader *r)
{
	return r->nr_warn;
}

const char *ft_reader_warning(const struct ft_reader *r, size_t i)
{
	return i < r->nr_warn ? r->warn[i] : NULL;
}

size_t ft_reader_nr_sections(const struct ft_reader *r)
{
	return r->nr;
}

const struct ft_section *ft_reader_section(const struct ft_reader *r, size_t i)
{
	return i < r->nr ? &r->secs[i] : NULL;
}

/*
 * Inflate a zstd payload of disk bytes into at most raw bytes; the output
 * must be exactly raw bytes.  The output buffer grows with real output only.
 */
static void *inflate_section(struct ft_reader *r, const struct ft_section *s, const void *in,
			     char *err, size_t errlen)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, s->disk_size, 0 };
	size_t cap = s->raw_size < (1u << 20) ? s->raw_size : (1u << 20);
	unsigned char *out = NULL;
	size_t have = 0;

	if (!ds)
		goto oom;
	ZSTD_initDStream(ds);
	out = malloc(cap ? cap : 1);
	if (!out)
		goto oom;
	for (;;) {
		ZSTD_outBuffer ob = { out, cap, have };
		size_t ret = ZSTD_decompressStream(ds, &ob, &ib);

		have = ob.pos;
		if (ZSTD_isError(ret)) {
			ft_seterr(err, errlen,
				  "%s: corrupt compressed %s section at offset %llu: %s", r->path,
				  sec_name(s->type), (unsigned long long)s->offset,
				  ZSTD_getErrorName(ret));
			goto fail;
		}
		if (ret == 0 && ib.pos == ib.size)
			break; /* frame complete, input consumed */
		if (have == cap) {
			size_t ncap;
			unsigned char *n;

			if (cap >= s->raw_size) {
				ft_seterr(
					err, errlen,
					"%s: compressed %s section at offset %llu inflates beyond its "
					"declared %llu bytes",
					r->path, sec_name(s->type), (unsigned long long)s->offset,
					(unsigned long long)s->raw_size);
				goto fail;
			}
			ncap = cap * 2 < s->raw_size ? cap * 2 : s->raw_size;
			n = realloc(out, ncap);
			if (!n)
				goto oom;
			out = n;
			cap = ncap;
		} else if (ib.pos == ib.size && ret != 0) {
			ft_seterr(err, errlen,
				  "%s: compressed %s section at offset %llu is cut short", r->path,
				  sec_name(s->type), (unsigned long long)s->offset);
			goto fail;
		}
	}
	if (have != s->raw_size) {
		ft_seterr(
			err, errlen,
			"%s: compressed %s section at offset %llu holds %zu bytes, header says %llu",
			r->path, sec_name(s->type), (unsigned long long)s->offset, have,
			(unsigned long long)s->raw_size);
		goto fail;
	}
	ZSTD_freeDStream(ds);
	return out;
oom:
	ft_seterr(err, errlen, "%s: out of memory inflating %s section", r->path,
		  sec_name(s->type));
fail:
	free(out);
	if (ds)
		ZSTD_freeDStream(ds);
	return NULL;
}

void *ft_reader_load(struct ft_reader *r, const struct ft_section *s, size_t *len, char *err,
		     size_t errlen)
{
	void *disk, *out;

	*len = 0;
	if (err && errlen)
		err[0] = 0;
	/* The index was validated at open; recheck in case s is not ours. */
	if (s->disk_size > r->file_size || s->offset > r->file_size - s->disk_size ||
	    s->raw_size > FT_SECTION_MAX_RAW) {
		ft_seterr(err, errlen, "%s: section out of bounds", r->path);
		return NULL;
	}
	disk = malloc(s->disk_size ? s->disk_size : 1);
	if (!disk) {
		ft_seterr(err, errlen, "%s: out of memory loading %s section", r->path,
			  sec_name(s->type));
		return NULL;
	}
	if (s->disk_size && read_at(r->fd, disk, s->disk_size, s->offset) < 0) {
		ft_seterr(err, errlen, "%s: read error at offset %llu: %s", r->path,
			  (unsigned long long)s->offset, strerror(errno));
		free(disk);
		return NULL;
	}
	if (!(s->flags & FT_SF_ZSTD)) {
		*len = s->disk_size;
		return disk;
	}
	out = inflate_section(r, s, disk, err, errlen);
	free(disk);
	if (out)
		*len = s->raw_size;
	return out;
}

void *ft_reader_load_all(struct ft_reader *r, uint32_t type, uint64_t id, size_t *len, char *err,
			 size_t errlen)
{
	unsigned char *all = NULL;
	size_t have = 0;

	*len = 0;
	if (err && errlen)
		err[0] = 0;
	for (size_t i = 0; i < r->nr; i++) {
		const struct ft_section *s = &r->secs[i];
		unsigned char *n;
		void *p;
		size_t l;

		if (s->type != type || (id != UINT64_MAX && s->id != id))
			continue;
		p = ft_reader_load(r, s, &l, err, errlen);
		if (!p) {
			free(all);
			*len = 0;
			return NULL;
		}
		if (have + l > FT_SECTION_MAX_RAW) {
			ft_seterr(err, errlen, "%s: %s sections exceed %llu bytes", r->path,
				  sec_name(type), (unsigned long long)FT_SECTION_MAX_RAW);
			free(p);
			free(all);
			return NULL;
		}
		n = realloc(all, have + l + 1);
		if (!n) {
			ft_seterr(err, errlen, "%s: out of memory", r->path);
			free(p);
			free(all);
			return NULL;
		}
		all = n;
		memcpy(all + have, p, l);
		have += l;
		all[have] = 0; /* text sections can be used as C strings */
		free(p);
	}
	*len = have;
	return all;
}

static void load_meta(struct ft_reader *r)
{
	size_t len, n = 0, cap = 0;
	char err[256];
	char *p;

	r->meta_loaded = 1;
	r->meta_buf = ft_reader_load_all(r, FT_SEC_META, UINT64_MAX, &len, err, sizeof(err));
	if (!r->meta_buf)
		return;
	for (p = r->meta_buf; p < r->meta_buf + len;) {
		char *nl = memchr(p, '\n', (size_t)(r->meta_buf + len - p));
		char *eq;

		if (nl)
			*nl = 0;
		eq = strchr(p, '=');
		if (eq && eq != p) {
			*eq = 0;
			if (FT_GROW(r->kv, cap, n + 1, 32))
				break;
			r->kv[n].key = p;
			r->kv[n].val = eq + 1;
			n++;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	r->nr_kv = n;
}

const char *ft_reader_meta(struct ft_reader *r, const char *key)
{
	const char *v = NULL;

	if (!r->meta_loaded)
		load_meta(r);
	/* The last value wins: later META chunks (end of recording) override. */
	for (size_t i = 0; i < r->nr_kv; i++)
		if (!strcmp(r->kv[i].key, key))
			v = r->kv[i].val;
	return v;
}

/* ---- stack map chunks ---- */

struct fsmb_ent {
	uint32_t id, nr, ref;
	size_t seq; /* arrival order: the last of one id wins */
	uint64_t *ips;
};

struct fsmb_acc {
	struct fsmb_ent *e;
	size_t nr, cap;
	size_t bytes; /* of the merged blob's entries */
	int oom;
};

static int fsmb_collect(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	struct fsmb_acc *a = arg;
	struct fsmb_ent *e;

	if (FT_GROW(a->e, a->cap, a->nr + 1, 256)) {
		a->oom = 1;
		return 1;
	}
	e = &a->e[a->nr];
	e->ips = malloc(nr ? nr * sizeof(*ips) : 1);
	if (!e->ips) {
		a->oom = 1;
		return 1;
	}
	memcpy(e->ips, ips, nr * sizeof(*ips));
	e->id = id;
	e->nr = nr;
	e->ref = ref;
	e->seq = a->nr++;
	return 0;
}

static int fsmb_ent_cmp(const void *a, const void *b)
{
	const struct fsmb_ent *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void *ft_reader_load_fsmb(struct ft_reader *r, uint64_t id, size_t *len, char *err, size_t errlen)
{
	struct ft_fsmb_header hdr = { FT_FSMB_MAGIC, FT_FSMB_VERSION, 0, 0 };
	struct fsmb_acc a = { 0 };
	size_t chunks = 0, first = 0, out_len, k;
	unsigned char *out = NULL;

	*len = 0;
	if (err && errlen)
		err[0] = 0;
	for (size_t i = 0; i < r->nr; i++)
		if (r->secs[i].type == FT_SEC_STACKMAP && r->secs[i].id == id && !chunks++)
			first = i;
	if (!chunks)
		return NULL;
	if (chunks == 1) /* as written (a kernel's blob may be in the other byte order) */
		return ft_reader_load(r, &r->secs[first], len, err, errlen);
	for (size_t i = first; i < r->nr; i++) {
		const struct ft_section *s = &r->secs[i];
		char perr[256];
		size_t l;
		void *p;

		if (s->type != FT_SEC_STACKMAP || s->id != id)
			continue;
		p = ft_reader_load(r, s, &l, err, errlen);
		if (!p)
			goto fail;
		if (ft_fsmb_parse(p, l, fsmb_collect, &a, perr, sizeof(perr)) < 0 || a.oom) {
			free(p);
			ft_seterr(err, errlen, "%s: %s", r->path, a.oom ? "out of memory" : perr);
			goto fail;
		}
		free(p);
	}
	if (a.nr) /* chunks of no stack leave a.e NULL, which qsort() must not get */
		qsort(a.e, a.nr, sizeof(*a.e), fsmb_ent_cmp);
	out_len = sizeof(hdr);
	for (k = 0; k < a.nr; k++)
		if (k + 1 == a.nr || a.e[k + 1].id != a.e[k].id)
			out_len += sizeof(struct ft_fsmb_entry) + a.e[k].nr * sizeof(uint64_t);
	out = malloc(out_len);
	if (!out) {
		ft_seterr(err, errlen, "%s: out of memory", r->path);
		goto fail;
	}
	*len = sizeof(hdr);
	for (k = 0; k < a.nr; k++) {
		struct ft_fsmb_entry e = { a.e[k].id, a.e[k].nr, a.e[k].ref, 0 };

		if (k + 1 < a.nr && a.e[k + 1].id == a.e[k].id)
			continue; /* a later chunk has this stack */
		memcpy(out + *len, &e, sizeof(e));
		*len += sizeof(e);
		memcpy(out + *len, a.e[k].ips, e.nr * sizeof(uint64_t));
		*len += e.nr * sizeof(uint64_t);
		hdr.nr_stacks++;
	}
	memcpy(out, &hdr, sizeof(hdr));
	for (k = 0; k < a.nr; k++)
		free(a.e[k].ips);
	free(a.e);
	return out;
fail:
	for (k = 0; k < a.nr; k++)
		free(a.e[k].ips);
	free(a.e);
	*len = 0;
	return NULL;
}
