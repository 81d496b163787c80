"""PNG of a `trn-run --plan --sweep --png` forecast: scaling efficiency and cost against nodes."""

import json

from ..errors import DataError


def read_sweep(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise DataError(f"{path}: cannot read the sweep ({e}); give the JSON trn-run --sweep wrote") from None
    rows = [r for r in doc.get("rows", []) if "step" in r]
    if not rows:
        raise DataError(f"{path}: no node count of the sweep can run; nothing to plot")
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
