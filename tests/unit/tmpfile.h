/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scratch file per cmocka test: setup() creates an empty /tmp file whose
 * name is in path[], teardown() removes it.  Shared by the unit tests that
 * write and read back trace files.
 */
#ifndef FTRAIL_TEST_TMPFILE_H
#define FTRAIL_TEST_TMPFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/ftrail-test-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

#endif
