/* state.c: the recording switch (state.h).  It lives with the collector,
 * which turns it off when storing fails (the writer); libtrace reads it on
 * every wrapped call and moves it through activation and shutdown. */
#include "collector/state.h"
#include "collector/say.h"

#include <stdio.h>

_Atomic int gt_state;

static _Atomic int said_off;

void gt_turn_off(const char *why)
{
    atomic_store(&gt_state, GT_STATE_OFF);
    if (why && !atomic_exchange(&said_off, 1))
        gt_say("%s", why);
}
