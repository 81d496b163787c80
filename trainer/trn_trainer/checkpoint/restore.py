"""Where a run resumes from (docs/checkpoints.md#restore): the newest checkpoint whose every
shard can be read, checksum checked, from some tier - each shard from the node-local tier when
it is there and whole, else from the run directory (a store's newer checkpoint was fetched into
the run directory first: s3.restore_newer). Ranks then agree on one step
(group.agreed_resume_step) and a rank that found a newer one reads that step."""

from ..errors import CheckpointError
from . import files
from .shards import assemble


def candidate_steps(tiers):
    """Steps with a manifest in any tier, newest first. Files without one are never read."""
    steps = set()
    for _, directory in tiers.directories():
        steps.update(files.committed_steps(directory))
    return sorted(steps, reverse=True)


def warn_uncommitted(tiers, newest, warn):
    """Say which steps newer than `newest` (-1: none) have files but no manifest in the run
    directory (a save cut off by a lost node or a kill): they are not read."""
    cut_off = [s for s in files.uncommitted_steps(tiers.shared) if s > newest]
    if cut_off:
        start = f"resuming from step {newest}" if newest >= 0 else "training from step 0"
        warn(f"warning: step(s) {', '.join(map(str, cut_off[:5]))} in {tiers.shared} have files but no "
             f"committed manifest (a save that was cut off): not read; {start}, the newest "
             "committed state")


def read_step_manifest(tiers, step):
    """The manifest of `step`, the shared tier's first; ValueError when no tier has a valid one."""
    errors = []
    for name, directory in reversed(tiers.directories()):  # the shared tier's is the reference
        try:
            manifest = files.read_manifest(directory, step)
        except ValueError as e:
            errors.append(str(e))
            continue
        if manifest is not None:
            return manifest
    raise ValueError("; ".join(errors) or "no manifest")


def read_shard_any_tier(tiers, entry):
    """(loaded shard, tier name) from the fastest tier that has it whole."""
    problems = []
    for name, directory in tiers.directories():
        try:
            return files.read_shard(directory, entry), name
        except ValueError as e:
            problems.append(f"{name} tier: {e}" if len(tiers.directories()) > 1 else str(e))
    raise ValueError("; ".join(problems))


def every_rank_says(message):
    """The `warn` of a load on every rank, into that rank's own log: the rank that finds a shard
    damaged fetches it again from the store, and rank 0, reading the repaired copy after it, has
    nothing to say; a say() that prints on rank 0 alone would lose the fetch."""
    print(message, flush=True)


def load_step(tiers, step):
    """(state, tiers read) of checkpoint `step`; ValueError when a shard cannot be read whole."""
    manifest = read_step_manifest(tiers, step)
    shares, sources = {}, set()
    for entry in manifest["shards"]:
        shares[entry["rank"]], source = read_shard_any_tier(tiers, entry)
        sources.add(source)
    if 0 not in shares:
        raise ValueError("its manifest lists no shard of rank 0")
    return files.check_loaded(assemble(shares.pop(0), shares)), sources


def _load_or_fetch_again(tiers, step, warn, load):
    """load(tiers, step); when the run directory's copy cannot be read but the object store holds
    the step committed, fetched from there over it and loaded again (a damaged local copy never
    costs the run a checkpoint the store has whole)."""
    try:
        return load(tiers, step)
    except CheckpointError:
        raise
    except Exception:  # noqa: BLE001 - the caller reports it when the store cannot help
        if tiers.store is None or not tiers.store.fetch_over_damaged(step, tiers.shared, warn):
            raise
    return load(tiers, step)


def load_newest(tiers, warn, load=load_step):
    """(state, step, tiers read) of the newest loadable checkpoint; (None, -1, set()) when there
    is none. load(tiers, step) -> (state, tiers read) reads one (default: the whole state). A
    checkpoint that cannot be read is skipped with a warning; one the run cannot use
    (CheckpointError) stops it; checkpoints present but none loadable is an error: starting over
    would delete them."""
    candidates = candidate_steps(tiers)
    warn_uncommitted(tiers, candidates[0] if candidates else -1, warn)
    for step in candidates:
        try:
            state, sources = _load_or_fetch_again(tiers, step, warn, load)
        except CheckpointError:
            raise
        except Exception as e:  # truncated zip, checksum, pickle errors: fall back to an older one
            warn(f"warning: skipping checkpoint {tiers.path(step)}: cannot be loaded ({type(e).__name__}: "
                 f"{str(e).splitlines()[0] if str(e) else ''}); trying an older one")
            continue
        return state, step, sources
    if candidates:
        raise CheckpointError(
            f"none of the {len(candidates)} checkpoint(s) in {tiers.shared} can be loaded (see the "
            "warnings above); move them away, or pass --no-resume to start over")
    return None, -1, set()
