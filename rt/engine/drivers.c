/* drivers: the registry of drivers, one row per behaviour kind, and the engine made with it. Above
 * engine.c (its built-in drivers) and executor.c (an executor's and a source's threads), so that the
 * engine itself calls no driver by name. */
#include "engine.h"

/* The drivers, by behaviour kind: what a unit's threads do after the start gate. A unit's threads are
 * set up the same way whatever their driver. */
const struct jl_driver *const jl_drivers[JL_BEH_N] = {
	[JL_BEH_PERIODIC] = &jl_driver_periodic,
	[JL_BEH_CONTINUOUS] = &jl_driver_continuous,
	[JL_BEH_EXEC] = &jl_driver_exec,
	[JL_BEH_EXECUTOR] = &jl_driver_executor,
	[JL_BEH_SOURCE] = &jl_driver_source,
	[JL_BEH_ATTACH] = &jl_driver_attach,
};

int jl_engine_init(struct jl_engine *eng, const struct jl_scenario *sc, const struct jl_engine_hooks *hooks,
		   char *err, size_t errlen)
{
	return jl_engine_init_drivers(eng, sc, hooks, jl_drivers, err, errlen);
}
