/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offsets of the fields the assembly fast paths of tramp.S use, in the
 * runtime's C structures (rt.h, ringbuf.h, session.h, record.h).  Plain
 * numbers, so the assembler can use them; runtime/hooks.c checks every one
 * against offsetof() at compile time (_Static_assert), so a structure that
 * changes breaks the build here instead of the traced program.  To update:
 * read the failing assertion's field and put its offsetof() here.
 */
#ifndef FTRAIL_RT_OFFSETS_H
#define FTRAIL_RT_OFFSETS_H

/* struct rt_thread (the TLS block rt_self) and the ft_rb_thread rb in it, level 0 */
#define FT_OFF_T_HOT 8
#define FT_OFF_T_BUSY 4
#define FT_OFF_T_STATE 0
#define FT_OFF_T_DEPTH 12
#define FT_OFF_T_NOTRACE 16
#define FT_OFF_T_REC_DEPTH 20
#define FT_OFF_T_FRAMES 24
#define FT_OFF_RB_AREA 32
#define FT_OFF_RB_SLOT 40
#define FT_OFF_RB_NEST 64
#define FT_OFF_W_PAGE 72
#define FT_OFF_W_NEV 80
#define FT_OFF_W_LAST_TS 104
#define FT_OFF_W_OFF 120
#define FT_OFF_W_LIM 124
#define FT_OFF_W_DEPTH 128
#define FT_OFF_W_GEN 136

/* struct rt_state (rt) */
#define FT_OFF_RT_CTL 8
#define FT_OFF_RT_EPOCH 32
#define FT_OFF_RT_HTAB 16
#define FT_OFF_RT_HMASK2 36

/* struct ft_session_ctl, struct rt_func, struct rt_frame */
#define FT_OFF_CTL_GEN 0
#define FT_OFF_CTL_TRACING_ON 8
#define FT_OFF_F_ADDR 0
#define FT_OFF_F_EPOCH 32
#define FT_OFF_F_FLAGS 36
#define FT_OFF_F_FID 28
#define FT_OFF_FR_FUNC 0
#define FT_OFF_FR_RET 8
#define FT_OFF_FR_SLOT 16
#define FT_OFF_FR_FID 32
#define FT_OFF_FR_FLAGS 36
#define FT_OFF_FR_SID 40 /* sid1: written with flags and pad (8 bytes from FR_FLAGS) */
#define FT_SIZEOF_FRAME 48

/* struct ft_rb_slot, struct ft_rb_area, struct ft_page */
#define FT_OFF_SLOT_BUSY 24
#define FT_OFF_AREA_PAGE_SIZE 8
#define FT_OFF_AREA_SNAP_GEN 192
#define FT_OFF_PAGE_SIZE 8
#define FT_SIZEOF_PAGE 32

/* constants (checked as well) */
#define FT_C_RT_MAX_FRAMES 16384
#define FT_C_RF_HOOK 15 /* RF_TRACE | RF_GRAPH_ROOT | RF_GRAPH_NOTRACE | RF_CMD */
#define FT_C_RF_TRACE 1
#define FT_C_FR_RECORDED 1
#define FT_C_FR_RECORDED_CYG 9	   /* FR_RECORDED | FR_CYG */
#define FT_C_FID_MAX 262143	   /* FT_REC_FID_MAX */
#define FT_C_EDELTA_MAX 4095	   /* FT_REC_EDELTA_MAX */
#define FT_C_XDELTA_MAX 1073741823 /* FT_REC_XDELTA_MAX */
#define FT_C_T_READY 1		   /* RT_THREAD_READY */
#define FT_C_HOOK_MCOUNT 0	   /* enum rt_hook_kind */
#define FT_C_HOOK_FENTRY 1
#define FT_C_HOOK_PATCHED 2
#define FT_C_HASH_MUL 0x5bd1e995 /* rt_hash_key(): an imul immediate (< 2^31) */

#endif
