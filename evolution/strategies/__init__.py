"""The search methods, one module each (`ga`, `cmaes`, `openai_es`,
`map_elites`, `neat_strategy`, `gp_strategy`), behind one ask/tell interface (`base`),
and the registry the run asks for them and their settings (`registry`).
"""
