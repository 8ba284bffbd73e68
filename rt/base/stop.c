/* stop: storage of the stop flag (see stop.h for why it is the one global). */
#include "stop.h"

atomic_int jl_stop_flag = JL_STOP_NONE;
