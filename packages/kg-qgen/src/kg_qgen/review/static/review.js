// Saves the annotator's state of the current item on every change (PUT, JSON), and handles the
// keyboard shortcuts. The server is the only store: nothing is kept in the browser.
(function () {
  "use strict";
  const card = document.querySelector("article.item");
  if (!card) return;
  const itemId = card.dataset.itemId;
  const state = JSON.parse(document.getElementById("state").textContent);
  const status = document.getElementById("status");
  const comment = document.getElementById("comment");
  const yes = document.getElementById("btn-yes");
  const no = document.getElementById("btn-no");
  const url = card.dataset.api;
  let inFlight = Promise.resolve();
  let commentTimer = null;

  function render() {
    yes.setAttribute("aria-pressed", state.verdict === true ? "true" : "false");
    no.setAttribute("aria-pressed", state.verdict === false ? "true" : "false");
    for (const box of document.querySelectorAll("input[data-flag]")) {
      box.checked = Boolean(state[box.dataset.flag]);
    }
  }

  function body() {
    return JSON.stringify({
      verdict: state.verdict, leak: state.leak, ambiguous: state.ambiguous,
      ungrammatical: state.ungrammatical, comment: state.comment,
    });
  }

  function setStatus(text, cls) {
    status.textContent = text;
    status.className = "status" + (cls ? " " + cls : "");
  }

  // Saves are chained so that they reach the server in the order they were made.
  function save(keepalive) {
    const payload = body();
    setStatus("saving…", "saving");
    inFlight = inFlight.then(async () => {
      try {
        const resp = await fetch(url, {
          method: "PUT", headers: { "Content-Type": "application/json" }, body: payload,
          credentials: "same-origin", keepalive: Boolean(keepalive),
        });
        const data = await resp.json();
        if (!resp.ok) throw new Error(data.error || resp.statusText);
        state.updated_at = data.updated_at;
        setStatus("saved at " + new Date(data.updated_at).toLocaleTimeString(), "saved");
      } catch (err) {
        setStatus("NOT SAVED: " + err.message + " (your next change retries)", "failed");
      }
    });
    return inFlight;
  }

  // Keep the progress counters right without a reload (the server recounts on every page).
  const progress = document.getElementById("progress-text");
  const chip = document.getElementById("type-chip");
  function bump(delta) {
    for (const el of [progress, chip]) {
      if (!el) continue;
      el.dataset.done = String(Number(el.dataset.done) + delta);
    }
    if (progress) progress.textContent = progress.dataset.done + " / " + progress.dataset.total + " judged";
    if (chip) chip.textContent = chip.dataset.type + " " + chip.dataset.done + "/" + chip.dataset.total;
    const fill = document.querySelector(".progress .fill");
    if (fill && progress) fill.style.width = (100 * progress.dataset.done / progress.dataset.total) + "%";
  }

  function setVerdict(v) {
    if (state.verdict === null && v !== null) bump(1);
    state.verdict = v; render(); save();
  }
  function toggleFlag(f) { state[f] = !state[f]; render(); save(); }
  function flushComment() {
    if (commentTimer !== null) { clearTimeout(commentTimer); commentTimer = null; }
    if (comment.value !== state.comment) { state.comment = comment.value; return save(); }
    return inFlight;
  }

  yes.addEventListener("click", () => setVerdict(true));
  no.addEventListener("click", () => setVerdict(false));
  for (const box of document.querySelectorAll("input[data-flag]")) {
    box.addEventListener("change", () => { state[box.dataset.flag] = box.checked; save(); });
  }
  comment.addEventListener("input", () => {
    if (commentTimer !== null) clearTimeout(commentTimer);
    commentTimer = setTimeout(flushComment, 500);
  });
  comment.addEventListener("blur", flushComment);
  window.addEventListener("pagehide", () => {
    if (comment.value !== state.comment) { state.comment = comment.value; save(true); }
  });

  // Leave the page only after pending saves reached the server.
  function go(link) {
    if (!link) return;
    flushComment().then(() => inFlight).then(() => { window.location.href = link.href; });
  }
  for (const id of ["prev", "next", "next-undecided"]) {
    const link = document.getElementById(id);
    if (link) link.addEventListener("click", (ev) => { ev.preventDefault(); go(link); });
  }

  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const typing = ev.target === comment;
    if (typing) {
      if (ev.key === "Escape") comment.blur();
      return;
    }
    const actions = {
      y: () => setVerdict(true), n: () => setVerdict(false),
      j: () => go(document.getElementById("next")), ArrowRight: () => go(document.getElementById("next")),
      k: () => go(document.getElementById("prev")), ArrowLeft: () => go(document.getElementById("prev")),
      u: () => go(document.getElementById("next-undecided")),
      l: () => toggleFlag("leak"), a: () => toggleFlag("ambiguous"), g: () => toggleFlag("ungrammatical"),
      c: () => comment.focus(),
    };
    const action = actions[ev.key];
    if (action) { ev.preventDefault(); action(); }
  });
  render();
  if (state.updated_at) setStatus("saved at " + new Date(state.updated_at).toLocaleTimeString(), "saved");
  document.documentElement.dataset.reviewReady = "true";  // for automated browsers: handlers are live
})();
