"""The training dashboard: `python -m plots dashboard [RUNS_DIR]` serves a
page (Bokeh) that lists the runs under RUNS_DIR and follows them live,
read from the files the runs write and never writing to them.

- `runs`: the run directories as table rows (status from the run's lock,
  checkpoint and logbook);
- `page`: the Bokeh document of one browser tab;
- `views`: what a chosen run shows besides its curves (its method's own
  state, a replay, comparisons), as HTML with the pictures `plots` draws;
- `history`: a method's own numbers per generation (method.jsonl) drawn;
- `overlay`: the best-fitness curves of the runs ticked in the table;
- `groups`: runs grouped by method or by a setting, per group the median
  and a band of the best fitness on frames played (`evolution.compare`'s
  figure, live), and a comparison's tables as tables;
- `archive_map`: a MAP-Elites archive as a figure whose cells replay their
  elite when clicked;
- `study`: an `evolution.tune` study (its trials, the best so far,
  parallel coordinates, Optuna's importance), read without writing it;
- `charts`: what every fitness chart shares (smoothing, log y, ticks, a
  colour per run);
- `address`: the page's address (`?run=`, `?overlay=`, `?study=`, ...),
  read when it opens and written as the choice changes;
- `server`: the server, its address and its safety (127.0.0.1 unless told
  otherwise, and a warning when told otherwise: the page has no login;
  nothing served outside RUNS_DIR's reading and Bokeh's assets).

Everything read from disk (run names, settings, logbook text) is shown
as text: escaped where it goes into HTML, or in widgets that draw text.
"""
