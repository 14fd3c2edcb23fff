/* memreg.h: the allocations the tracer has seen, to tell the memory kind
 * of a copy's pointers (pinned, managed, device, else pageable).
 *
 * Lookups happen on every copy and must not lock: a sorted array read
 * under a sequence counter (readers retry if a writer was active).
 * Allocation and free calls take a mutex; they are slow calls anyway.
 */
#ifndef GPUTRACE_MEMREG_H
#define GPUTRACE_MEMREG_H

#include "format/record.h"

#include <stddef.h>

void gt_memreg_add(const void *base, size_t size, enum gt_mem_kind kind);
void gt_memreg_remove(const void *base);
/* The kind of memory ptr points into; GT_MEM_PAGEABLE if unknown. */
enum gt_mem_kind gt_memreg_kind(const void *ptr);

#endif
