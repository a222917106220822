/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PRF_TERM_STR_H
#define PRF_TERM_STR_H

/* The terminal's clear-screen string from terminfo (ANSI's when unknown). */
const char *term_clear(int fd);

#endif
