"""The command-line plumbing of `python -m evolution.run` (and of compare
and tune): its options and the settings they give (`run_options`,
`settings_file`, `config_file`), the options compare and tune set for
each run they start (`task_options`), the run directory (`run_dir`),
resuming (`resume`), what is printed (`run_lines`, `progress`), and the
checks made before a run starts (`run_stages`, `run_memory`).
"""
