"""PNG of a `trn-run --plan --sweep --png` forecast: scaling efficiency and cost against nodes."""

from ..errors import DataError
from ..outside_files import json_loads

PLOTTED = ("nodes", "efficiency", "cost_on_demand_usd", "cost_reserved_usd")


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read_sweep(path):
    """(the document, its rows that can run) of a trn-run --sweep JSON, or a DataError."""
    try:
        with open(path, "rb") as f:
            doc = json_loads(f.read())
    except (OSError, ValueError) as e:
        raise DataError(f"{path}: cannot read the sweep ({e}); give the JSON trn-run --sweep wrote") from None
    rows = doc.get("rows", []) if isinstance(doc, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise DataError(f"{path}: not a sweep (an object with a list of rows); give the JSON trn-run "
                        "--sweep wrote")
    rows = [r for r in rows if "step" in r]
    if not rows:
        raise DataError(f"{path}: no node count of the sweep can run; nothing to plot")
    bad = next((r for r in rows if not all(_number(r.get(key)) for key in PLOTTED)), None)
    if bad is not None:
        raise DataError(f"{path}: the row of nodes {bad.get('nodes')!r} lacks a number for one of "
                        f"{', '.join(PLOTTED)}; give the JSON trn-run --sweep wrote")
    return doc, rows


def plot_sweep(json_path, png_path):
    doc, rows = read_sweep(json_path)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nodes = [r["nodes"] for r in rows]
    fig, (ax_eff, ax_cost) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    ax_eff.plot(nodes, [100 * r["efficiency"] for r in rows], marker="o")
    ax_eff.set_ylabel("scaling efficiency (%)")
    ax_eff.set_ylim(bottom=0)
    ax_eff.grid(alpha=0.3)
    ax_cost.plot(nodes, [r["cost_on_demand_usd"] for r in rows], marker="o", label="on demand")
    ax_cost.plot(nodes, [r["cost_reserved_usd"] for r in rows], marker="o", label="reserved")
    ax_cost.set_ylabel(f"USD for {doc.get('steps', '?')} steps")
    ax_cost.set_xlabel("nodes")
    ax_cost.legend()
    ax_cost.grid(alpha=0.3)
    ax_eff.set_title(f"forecast for {doc.get('profile', '?')}")
    fig.tight_layout()
    fig.savefig(png_path, dpi=100)
    plt.close(fig)
    return png_path


def plot_sweep_command(args):
    """`plot-sweep --input JSON --output PNG`."""
    print(f"wrote {plot_sweep(args.input, args.output)}")
