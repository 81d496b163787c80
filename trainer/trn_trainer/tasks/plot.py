"""PNG of loss and throughput over optimizer steps from a metrics.jsonl."""

import os

from ..errors import DataError
from ..metrics import read_rows


def plot_metrics(metrics_path, png_path):
    rows = read_rows(metrics_path) if os.path.exists(metrics_path) else None
    if rows is None:
        raise DataError(f"{metrics_path}: no such file; give the metrics.jsonl a pretrain run wrote")
    if not rows:
        raise DataError(f"{metrics_path}: holds no metrics rows; nothing to plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["step"] for r in rows]
    fig, (ax_loss, ax_tput) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    ax_loss.plot(steps, [r["loss"] for r in rows], label="total")
    if all("mlm_loss" in r for r in rows):
        ax_loss.plot(steps, [r["mlm_loss"] for r in rows], label="MLM", alpha=0.7)
        ax_loss.plot(steps, [r["nsp_loss"] for r in rows], label="NSP", alpha=0.7)
    ax_loss.set_ylabel("loss")
    ax_loss.legend()
    ax_loss.grid(alpha=0.3)
    ax_tput.plot(steps, [r["seq_per_s"] for r in rows], color="tab:green")
    ax_tput.set_ylabel("sequences / s")
    ax_tput.set_xlabel("optimizer step")
    ax_tput.grid(alpha=0.3)
    fig.suptitle(os.path.basename(os.path.dirname(os.path.abspath(metrics_path))) or "training")
    fig.tight_layout()
    tmp = png_path + ".tmp.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, png_path)
    return png_path


def plot_command(args):
    """`plot METRICS -o PNG`."""
    print(f"wrote {plot_metrics(args.metrics, args.output)}")
