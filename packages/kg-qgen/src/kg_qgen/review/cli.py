"""``kg-qgen review``: serve the annotation app, or print / export the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

__all__ = ["review_command"]


@click.command("review")
@click.argument("set_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--per-type", type=click.IntRange(1, 100_000), default=50, show_default=True,
    help="Items sampled per type (paper: 50).",
)  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True, help="Sampling seed.")
@click.option(
    "--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Annotation database [default: SET_DIR/review.sqlite].",
)  # fmt: skip
@click.option("--summary", is_flag=True, help="Print the statistics and exit (no server).")
@click.option("--json", "as_json", is_flag=True, help="With --summary: print JSON.")
@click.option(
    "--export-csv", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="With --summary: also write every annotation as CSV here.",
)  # fmt: skip
@click.option(
    "--export-json", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="With --summary: also write the statistics as JSON here.",
)  # fmt: skip
def review_command(
    set_dir: Path,
    host: str,
    port: int,
    per_type: int,
    seed: int,
    db_path: Path | None,
    summary: bool,
    as_json: bool,
    export_csv: Path | None,
    export_json: Path | None,
) -> None:
    """Human review of a built question set (paper F.1): a local annotation web app.

    Serves a seeded uniform sample of --per-type questions per type, the same for every annotator;
    each annotation is saved at once to SET_DIR/review.sqlite. With --summary, prints validity per
    type with 95% Wilson intervals, the overall 0-100 score and Fleiss' kappa between annotators.
    """
    if summary:
        _print_summary(set_dir, db_path, as_json, export_csv, export_json)
        return
    if as_json or export_csv or export_json:
        raise click.UsageError("--json, --export-csv and --export-json go with --summary")
    try:
        from werkzeug.serving import make_server

        from kg_qgen.review.app import PORT_KEY, create_app
    except ImportError as err:
        raise click.ClickException(
            f"the review app needs Flask ({err.name} is missing): pip install 'kg-qgen[review]'"
        ) from err
    from kg_qgen.review.session import ReviewSession

    session = ReviewSession.open(set_dir, per_type=per_type, seed=seed, db_path=db_path)
    app = create_app(session, bind_host=host)
    server = make_server(host, port, app, threaded=True)
    app.config[PORT_KEY] = server.server_port  # a Host header must name this port too
    url = f"http://{host}:{server.server_port}/"
    state = "drew a new sample" if session.created else "resumed the sample"
    click.echo(
        f"kg-qgen review: {len(session.sample)} items ({state}, --per-type {per_type} "
        f"--seed {seed}); annotations in {session.store.path}"
    )
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            "warning: listening beyond this machine; the app has no authentication", err=True
        )
    click.echo(f"open {url}  (Ctrl-C stops; nothing is lost)")
    _stop_on_signals(server)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _print_summary(
    set_dir: Path,
    db_path: Path | None,
    as_json: bool,
    export_csv: Path | None,
    export_json: Path | None,
) -> None:
    """``--summary``: the statistics printed (text or JSON) and optionally exported."""
    from kg_qgen.review.session import open_store
    from kg_qgen.review.summary import annotations_csv, format_summary, summarize
    from kg_qgen.writable import check_writable_file

    for option, path in (("--export-csv", export_csv), ("--export-json", export_json)):
        if path is not None:  # refused before anything is read or written
            check_writable_file(path, option)

    store = open_store(set_dir, db_path)
    sample, annotations = store.sample(), store.annotations()
    result = summarize(sample, annotations)
    if export_csv is not None:
        export_csv.write_text(annotations_csv(sample, annotations), encoding="utf-8")
    if export_json is not None:
        export_json.write_text(json.dumps(result.to_dict(), indent=2), encoding="utf-8")
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else format_summary(result))


def _stop_on_signals(server: Any) -> None:
    """Ctrl-C (SIGINT) and SIGTERM ask the serving loop to stop (``server.shutdown``, which the
    loop polls every 0.5 s) instead of relying on a KeyboardInterrupt reaching it: the CLI test
    saw the server ignore Ctrl-C now and then under CI. ``shutdown`` blocks until the loop has
    stopped, so it runs on a short-lived thread, never in the handler itself."""
    import signal
    import threading

    def stop(signum: int, frame: Any) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)
