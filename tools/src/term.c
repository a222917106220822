// SPDX-License-Identifier: GPL-2.0-only
/*
 * term - what prf top asks terminfo (ncurses' libtinfo), apart: term.h
 * defines a macro for every capability name (lines, columns, ...).
 */
#include <curses.h>
#include <term.h>

#include "term_str.h"

const char *term_clear(int fd)
{
	static const char ansi[] = "\033[H\033[2J";
	int err;
	const char *cl;

	if (setupterm(NULL, fd, &err) != OK)
		return ansi;
	cl = tigetstr("clear");
	return cl && cl != (char *)-1 ? cl : ansi;
}
