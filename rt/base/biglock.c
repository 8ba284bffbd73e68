/* biglock: CPython's interpreter-lock rule, pure (biglock.h). */
#include "biglock.h"

bool jl_biglock_try_take(struct jl_biglock *b)
{
	if (b->locked)
		return false;
	b->locked = true;
	b->switch_number++;
	b->drop_request = false; /* the new holder resets it (RESET_GIL_DROP_REQUEST) */
	return true;
}

void jl_biglock_waited(struct jl_biglock *b, uint64_t seen, bool timed_out)
{
	/* a whole interval without the lock changing hands: ask the holder to drop it */
	if (timed_out && b->locked && b->switch_number == seen)
		b->drop_request = true;
}

uint64_t jl_biglock_release(struct jl_biglock *b)
{
	b->locked = false;
	return b->switch_number;
}

bool jl_biglock_switched(const struct jl_biglock *b, uint64_t seen)
{
	return b->switch_number != seen;
}
