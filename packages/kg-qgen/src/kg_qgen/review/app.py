"""The annotation web app (Flask, server-side Jinja2 templates, a little JavaScript for saving).

Routes:

=====================================  ==========================================================
``GET /``                              name form, or the annotator's next undecided item
``POST /login`` / ``POST /logout``     set / clear the annotator name (a plain cookie)
``GET /item/<position>``               one item: question, answer, decomposition, the form
``GET|PUT /api/annotations/<item>``    read / save the annotator's annotation (JSON)
``GET /results``                       per-type validity, score, kappa, annotators, exports
``GET /export/annotations.csv``        every annotation (CSV)
``GET /export/annotations.json``       every annotation (JSON)
``GET /export/summary.json``           the statistics of /results (JSON)
=====================================  ==========================================================

There is no authentication: the app binds to 127.0.0.1 by default and the annotator name is
whatever the person types. Every request must name the bound address in its ``Host`` header (a
loopback bind accepts 127.0.0.1, localhost and [::1]; a wildcard bind, 0.0.0.0, any host), so a
page elsewhere that rebinds its DNS name to 127.0.0.1 gets 403; every POST/PUT with an ``Origin``
must come from that same host (403 otherwise), and saves must be JSON, so another web page cannot
post annotations through a visitor's browser. A request body over :data:`MAX_REQUEST_BYTES` is
refused (413) before it is read. Item ids may hold any character ("/" included): the API route
takes the rest of the path as the id.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Flask,
    Response,
    abort,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)

from kg_qgen.review.decompose import LOGIC_RULES, decompose
from kg_qgen.review.session import ReviewSession
from kg_qgen.review.storage import FLAGS, MAX_COMMENT, Annotation
from kg_qgen.review.summary import annotations_csv

__all__ = ["ANNOTATOR_COOKIE", "MAX_REQUEST_BYTES", "create_app"]

ANNOTATOR_COOKIE = "kgq_annotator"
#: the largest request body read (an annotation is a few hundred bytes; the comment is capped)
MAX_REQUEST_BYTES = 64 * 1024
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARD = frozenset({"", "0.0.0.0", "::"})
PORT_KEY = "KG_QGEN_REVIEW_PORT"
_NAME = re.compile(r"^[\w][\w .@'-]{0,63}$")


def _valid_name(name: str | None) -> str | None:
    name = (name or "").strip()
    return name if _NAME.match(name) else None


def create_app(
    session: ReviewSession, *, bind_host: str = "127.0.0.1", port: int | None = None
) -> Flask:
    """The Flask app over an opened :class:`ReviewSession`, serving ``bind_host`` (and ``port``:
    None accepts any port in the Host header, as the test client sends none)."""
    app = Flask(__name__)
    app.config["JSON_SORT_KEYS"] = False
    app.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES
    app.config[PORT_KEY] = port  # the CLI sets it once the server is bound (--port 0 picks one)
    _add_guard(app, bind_host)
    app.extensions["kg_qgen_review"] = session
    sample = session.sample
    by_position = {s.position: s for s in sample}
    by_id = {s.item_id: s for s in sample}
    type_totals: dict[str, int] = {}
    for s in sample:
        type_totals[s.type] = type_totals.get(s.type, 0) + 1
    _add_login_routes(app, session, type_totals)
    _add_item_route(app, session, by_position, by_id, type_totals)
    _add_api_routes(app, session, by_id)
    _add_result_routes(app, session, by_id)
    return app


def _host_allowed(host_header: str, bind_host: str, port: int | None) -> bool:
    """Whether a request's Host header names the address the app is bound to."""
    if bind_host in WILDCARD:
        return True
    try:
        parts = urlsplit(f"//{host_header}")
        hostname, host_port = parts.hostname, parts.port
    except ValueError:
        return False
    names = LOOPBACK if bind_host.strip("[]") in LOOPBACK else {bind_host.strip("[]").lower()}
    return hostname in names and (port is None or host_port == port)


def _add_guard(app: Flask, bind_host: str) -> None:
    """Before every request: the Host header names the bound address (DNS-rebinding defence) and
    a POST/PUT's Origin, when sent, is that same host; 403 otherwise."""

    @app.before_request
    def guard() -> Any:
        if not _host_allowed(request.host, bind_host, app.config[PORT_KEY]):
            return jsonify(error=f"unexpected Host header {request.host!r}; open the app at "
                           "the address it printed"), 403  # fmt: skip
        origin = request.headers.get("Origin")
        unsafe = request.method in ("POST", "PUT", "DELETE", "PATCH")
        if unsafe and origin is not None and urlsplit(origin).netloc != request.host:
            return jsonify(error="cross-origin request refused"), 403
        return None


def _annotator() -> str | None:
    return _valid_name(request.cookies.get(ANNOTATOR_COOKIE))


def _next_undecided(session: ReviewSession, name: str, after: int = -1) -> int | None:
    decided = {a.item_id for a in session.store.annotations(name) if a.verdict is not None}
    todo = [s.position for s in session.sample if s.item_id not in decided]
    later = [p for p in todo if p > after]
    return (later or todo or [None])[0]


def _login_page(session: ReviewSession, type_totals: dict[str, int], error: str | None) -> str:
    return render_template(
        "login.html",
        n_items=len(session.sample),
        per_type=session.per_type,
        seed=session.seed,
        types=type_totals,
        set_dir=str(session.set_dir),
        error=error,
    )


def _add_login_routes(app: Flask, session: ReviewSession, type_totals: dict[str, int]) -> None:
    """``/`` (the login page, or the next undecided item), ``/login`` and ``/logout``."""

    @app.get("/")
    def index() -> Any:
        name = _annotator()
        if name is None:
            return _login_page(session, type_totals, None)
        pos = _next_undecided(session, name)
        if pos is None:
            return redirect(url_for("results"))
        return redirect(url_for("item", position=pos))

    @app.post("/login")
    def login() -> Any:
        name = _valid_name(request.form.get("annotator"))
        if name is None:
            error = "Use 1-64 letters, digits, spaces or . @ ' - (starting with a letter or digit)."
            return _login_page(session, type_totals, error), 400
        resp = redirect(url_for("index"))
        resp.set_cookie(ANNOTATOR_COOKIE, name, max_age=60 * 60 * 24 * 365, samesite="Strict")
        return resp

    @app.post("/logout")
    def logout() -> Any:
        resp = redirect(url_for("index"))
        resp.delete_cookie(ANNOTATOR_COOKIE)
        return resp


def _add_item_route(
    app: Flask,
    session: ReviewSession,
    by_position: dict[int, Any],
    by_id: dict[str, Any],
    type_totals: dict[str, int],
) -> None:
    """``/item/<position>``: one item to annotate, with the annotator's progress."""
    sample = session.sample

    @app.get("/item/<int:position>")
    def item(position: int) -> Any:
        name = _annotator()
        if name is None:
            return redirect(url_for("index"))
        row = by_position.get(position)
        if row is None:
            abort(404)
        record = session.records.get(row.item_id, {})
        mine = {a.item_id: a for a in session.store.annotations(name)}
        ann = mine.get(row.item_id) or Annotation(name, row.item_id, None)
        done_by_type: dict[str, int] = {}
        for a in mine.values():
            if a.verdict is not None:
                t = by_id[a.item_id].type
                done_by_type[t] = done_by_type.get(t, 0) + 1
        in_type = [s for s in sample if s.type == row.type]
        return render_template(
            "item.html",
            annotator=name,
            row=row,
            record=record,
            aliases=_aliases(record),
            d=decompose(record),
            ann=ann,
            flags=FLAGS,
            n_items=len(sample),
            n_done=sum(done_by_type.values()),
            type_index=in_type.index(row) + 1,
            type_total=len(in_type),
            type_totals=type_totals,
            done_by_type=done_by_type,
            prev_pos=position - 1 if position - 1 in by_position else None,
            next_pos=position + 1 if position + 1 in by_position else None,
            next_undecided=_next_undecided(session, name, after=position),
            max_comment=MAX_COMMENT,
            state=_state(ann),
        )


def _add_api_routes(app: Flask, session: ReviewSession, by_id: dict[str, Any]) -> None:
    """``/api/annotations/<item_id>``: read (GET) and save (PUT, same origin, JSON) one."""

    @app.get("/api/annotations/<path:item_id>")
    def get_annotation(item_id: str) -> Any:
        name = _annotator()
        if name is None:
            return jsonify(error="no annotator name; open / first"), 401
        if item_id not in by_id:
            return jsonify(error=f"unknown item {item_id!r}"), 404
        ann = session.store.annotation(name, item_id) or Annotation(name, item_id, None)
        return jsonify(_state(ann))

    @app.put("/api/annotations/<path:item_id>")
    def put_annotation(item_id: str) -> Any:
        name = _annotator()
        if name is None:
            return jsonify(error="no annotator name; open / first"), 401
        if not request.is_json:
            return jsonify(error="send JSON (Content-Type: application/json)"), 415
        if item_id not in by_id:
            return jsonify(error=f"unknown item {item_id!r}"), 404
        try:
            body = request.get_json(silent=True)
        except RecursionError:  # silent covers malformed JSON, not nesting too deep to parse
            body = None
        try:
            fields = _parse_state(body)
        except ValueError as err:
            return jsonify(error=str(err)), 400
        ann = session.store.save(name, item_id, **fields)
        return jsonify(_state(ann))


def _add_result_routes(app: Flask, session: ReviewSession, by_id: dict[str, Any]) -> None:
    """``/results`` and the exports (annotations as CSV or JSON, the summary as JSON)."""
    sample = session.sample

    @app.get("/results")
    def results() -> Any:
        summary = session.summary()
        notes = [(a, by_id[a.item_id]) for a in session.store.annotations() if a.comment or a.flags]
        return render_template(
            "results.html",
            notes=notes,
            annotator=_annotator(),
            s=summary,
            rules=LOGIC_RULES,
            flags=FLAGS,
            n_items=len(sample),
            per_type=session.per_type,
            seed=session.seed,
            set_dir=str(session.set_dir),
            db_path=str(session.store.path),
        )

    @app.get("/export/annotations.csv")
    def export_csv() -> Response:
        text = annotations_csv(sample, session.store.annotations())
        resp = make_response(text)
        resp.headers["Content-Type"] = "text/csv; charset=utf-8"
        resp.headers["Content-Disposition"] = "attachment; filename=annotations.csv"
        return resp

    @app.get("/export/annotations.json")
    def export_annotations_json() -> Any:
        rows = []
        for a in session.store.annotations():
            s = by_id[a.item_id]
            rows.append({**a.to_dict(), "type": s.type, "question": s.question, "answer": s.answer})
        return jsonify(rows)

    @app.get("/export/summary.json")
    def export_summary_json() -> Any:
        return jsonify(session.summary().to_dict())


def _aliases(record: Any, limit: int = 12) -> list[str]:
    """The answer's other accepted forms, without repeats or the answer itself."""
    raw = record.get("answer_aliases") if isinstance(record, dict) else None
    seen = {str(record.get("answer", "")).casefold()}
    out = []
    for alias in raw if isinstance(raw, list) else []:
        if isinstance(alias, str) and alias.strip() and alias.casefold() not in seen:
            seen.add(alias.casefold())
            out.append(alias)
    return out[:limit]


def _state(ann: Annotation) -> dict[str, Any]:
    return {
        "item_id": ann.item_id,
        "verdict": ann.verdict,
        **{f: getattr(ann, f) for f in FLAGS},
        "comment": ann.comment,
        "updated_at": ann.updated_at or None,
    }


def _parse_state(body: Any) -> dict[str, Any]:
    """The saved fields of a PUT body; a wrong type is a 400 with the field's name."""
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    verdict = body.get("verdict")
    if verdict is not None and not isinstance(verdict, bool):
        raise ValueError("'verdict' must be true, false or null")
    out: dict[str, Any] = {"verdict": verdict}
    for flag in FLAGS:
        value = body.get(flag, False)
        if not isinstance(value, bool):
            raise ValueError(f"'{flag}' must be true or false")
        out[flag] = value
    comment = body.get("comment", "")
    if not isinstance(comment, str):
        raise ValueError("'comment' must be a string")
    if len(comment) > MAX_COMMENT:
        raise ValueError(f"'comment' is longer than {MAX_COMMENT} characters")
    out["comment"] = comment
    return out
