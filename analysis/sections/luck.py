"""The report's luck and skill: per player count the shares of the variance of points and wins
that the deal, the seat and the bot decide, the upset rates and the first mover's edge
(``analysis.luck``), each number with what it means in one sentence."""
from __future__ import annotations

from .. import luck
from .context import Context
from .format import esc, html_table, md_cell


def _cells(t: luck.LuckTable) -> list[tuple[str, str, str]]:
    """Per component: its name, and its points and wins shares with their intervals, as text."""
    def share(v, lo, hi):
        return f"{v:.1%} (95% {lo:.1%} .. {hi:.1%})"
    return [(r["component"], share(r["points"], r["points_low"], r["points_high"]),
             share(r["wins"], r["wins_low"], r["wins_high"]))
            for r in luck.wide_shares(t).iter_rows(named=True)]


class Luck:
    title = "Luck and skill"

    def compute(self, ctx: Context) -> list[luck.LuckTable] | None:
        return luck.luck_tables(ctx.results, ctx.games) or None

    def figures(self, data) -> dict[str, str]:
        return {}

    def html(self, data, figures: dict[str, str]) -> list[str]:
        out = ["<h2>Luck and skill</h2>"]
        for t in data:
            out.append(f"<p>{esc(luck.headline(t))}</p>")
            if t.shares is not None:
                rows = "".join(f'<tr><td class="text">{esc(c)}</td><td class="num">{esc(p)}</td>'
                               f'<td class="num">{esc(w)}</td></tr>' for c, p, w in _cells(t))
                out.append('<div class="scroll"><table><thead><tr><th class="text">share of</th>'
                           '<th class="num">points</th><th class="num">wins</th></tr></thead>'
                           f"<tbody>{rows}</tbody></table></div>")
                out.append(html_table(t.upsets, {
                    "weaker": ("weaker", None), "stronger": ("stronger", None), "deals": ("deals", 0),
                    "upsets": ("upsets", 0), "upset rate": ("upset_rate", 3),
                    "95%": (("low", "high"), 3), "stronger swept": ("sweep_rate", 3)}))
            line = luck.first_mover_line(t)
            if line:
                out.append(f"<p>{esc(line)}</p>")
        out.append("<ul>" + "".join(f"<li>{esc(s)}</li>" for s in luck.MEANING.values()) + "</ul>")
        return out

    def markdown(self, data) -> list[str]:
        out = ["## Luck and skill", ""]
        for t in data:
            out.append(f"- {md_cell(luck.headline(t))}")
            if t.shares is not None:
                out += [f"  - {c}: points {p}, wins {w}" for c, p, w in _cells(t)]
                out += [f"  - upsets, {md_cell(r['weaker'])} over {md_cell(r['stronger'])}: "
                        f"{r['upsets']} of {r['deals']} deals ({r['upset_rate']:.1%}, 95% "
                        f"{r['low']:.1%} .. {r['high']:.1%})" for r in t.upsets.iter_rows(named=True)]
            line = luck.first_mover_line(t)
            if line:
                out.append(f"  - {md_cell(line)}")
        out += ["", *(f"- {md_cell(s)}" for s in luck.MEANING.values()), ""]
        return out


SECTION = Luck()
