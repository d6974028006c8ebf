"""The runs table's first rows written into the page's HTML, so they show
as soon as the page arrives, before BokehJS (about a megabyte of script)
has loaded and drawn the interactive table over them.

The HTML page Bokeh's server sends holds the document's roots as empty
elements that BokehJS fills, and loads BokehJS in its head, which holds
back everything below it. The page's template (`TEMPLATE`) loads BokehJS
at the end of the body instead, after a plain table of the rows the
interactive one opens with: the same columns, titles and number formats,
each run's name in its colour and a link to its view (`?run=NAME`). It
lies over the page until the interactive table has drawn its first rows,
when the page's script removes it (`page.CLICK_JS`). Every text in it is
escaped: a run's name is a directory's name, which may hold any character.
"""
from __future__ import annotations

import html
import math
from typing import Any, Sequence

from plots.dashboard.address import View, query

ELEMENT_ID = "first-rows"
# Over Bokeh's own page until BokehJS has drawn it.
TEMPLATE = ("{% block js_resources %}{% endblock %}\n"
            "{% block inner_body %}\n"
            f'<div id="{ELEMENT_ID}" style="position: absolute; top: 0; left: 0; right: 0; '
            'z-index: 10; background: white; padding: 5px; font-family: sans-serif; '
            'font-size: 12px">\n'
            "{{ first_rows }}\n"
            "</div>\n"
            "{{ bokeh_js }}\n"
            "{{ super() }}\n"
            "{% endblock %}\n")


def _cell(value: Any, form: str | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if form is not None and isinstance(value, (int, float)):
        if form.endswith("%"):
            return f"{100 * value:.1f}%"
        if form == "0,0":
            return f"{value:,.0f}"
        return f"{value:.3f}"
    return html.escape(str(value))


def first_rows_html(title: str, total: int, rows: Sequence[dict[str, Any]],
                    columns: Sequence[str], titles: dict[str, str], widths: dict[str, int],
                    formats: dict[str, str], colours: Sequence[str]) -> str:
    """The page's heading and a plain table of `rows` (each a dict of the
    table's `columns`, the first of `total`), formatted as the interactive
    table formats them."""
    head = "".join(f'<th style="width: {widths[c]}px; text-align: left; '
                   f'font-weight: normal; border-bottom: 1px solid #ccc">'
                   f'{html.escape(titles[c])}</th>' for c in columns)
    body = []
    for row, colour in zip(rows, colours):
        cells = []
        for c in columns:
            if c == "name":
                name = str(row[c])
                link = html.escape(query(View(run=name)), quote=True)
                cells.append(f'<td><a href="{link}" style="color: {html.escape(colour)}; '
                             f'font-weight: bold; text-decoration: none">'
                             f'{html.escape(name)}</a></td>')
            else:
                cells.append(f"<td>{_cell(row.get(c), formats.get(c))}</td>")
        body.append('<tr style="height: 25px">' + "".join(cells) + "</tr>")
    return (f"<h2>{html.escape(title)}</h2>"
            f'<p style="color: #666">{total} runs; the interactive table is loading</p>'
            f'<table style="border-collapse: collapse; table-layout: fixed">'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")
