/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FTRAIL_VERSION_H
#define FTRAIL_VERSION_H
#define FTRAIL_VERSION "0.1.0"
#endif
