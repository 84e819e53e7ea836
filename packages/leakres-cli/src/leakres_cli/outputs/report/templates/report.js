// Drill-down filters: type, role, leaked only, free text. Works on the server-rendered rows.
(function () {
  "use strict";
  for (const bar of document.querySelectorAll(".filters")) {
    const table = document.getElementById(bar.dataset.target);
    if (!table) continue;
    const rows = Array.from(table.tBodies[0].rows);
    const count = bar.querySelector(".count");
    const get = (name) => bar.querySelector('[data-filter="' + name + '"]');
    function apply() {
      const type = get("type").value, role = get("role").value;
      const leaked = get("leaked").checked, text = get("text").value.trim().toLowerCase();
      let shown = 0;
      for (const row of rows) {
        const ok = (!type || row.dataset.type === type) && (!role || row.dataset.role === role)
          && (!leaked || row.dataset.leaked === "yes")
          && (!text || row.textContent.toLowerCase().includes(text));
        row.hidden = !ok;
        if (ok) shown += 1;
      }
      count.textContent = shown + " of " + rows.length + " questions";
    }
    bar.addEventListener("input", apply);
    bar.addEventListener("change", apply);
    apply();
  }
})();
