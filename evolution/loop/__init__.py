"""The generational loop (`evolve`) and what it is made of: scoring a
generation (`generation`, `evaluate`), the run's state between two
generations (`run_state`), the reporters it calls after each (`reporters`,
`validation`), and the files of a run directory (`outputs`, `checkpoint`).
"""
