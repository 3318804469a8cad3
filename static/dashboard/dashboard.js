// The dashboard's own behaviour: confirmations, the lineage graph's
// path highlighting, the time-travel slider. No dependencies beyond htmx.
"use strict";

// Buttons with data-confirm ask before their form is sent (capture phase:
// before htmx sees the submit).
document.addEventListener("submit", (event) => {
  const button = event.submitter;
  const question = button && button.dataset.confirm;
  if (question && !window.confirm(question)) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
}, true);

// Lineage: clicking a node (or Enter / Space on it) highlights its path
// down to the evidence and dims the rest; again on the same node clears it.
function highlightPath(svg, start) {
  const down = JSON.parse(svg.dataset.down || "{}");
  const onPath = new Set([start]);
  const queue = [start];
  while (queue.length) {
    for (const next of down[queue.shift()] || []) {
      if (!onPath.has(next)) { onPath.add(next); queue.push(next); }
    }
  }
  const clearing = svg.dataset.selected === start;
  svg.dataset.selected = clearing ? "" : start;
  svg.classList.toggle("dimmed", !clearing);
  svg.querySelectorAll(".node").forEach((node) => {
    const on = !clearing && onPath.has(node.dataset.id);
    node.classList.toggle("on-path", on);
    node.classList.toggle("selected", !clearing && node.dataset.id === start);
    node.setAttribute("aria-pressed", String(!clearing && node.dataset.id === start));
  });
  svg.querySelectorAll(".edge").forEach((edge) => {
    edge.classList.toggle("on-path", !clearing && onPath.has(edge.dataset.from) && onPath.has(edge.dataset.to));
  });
}

document.addEventListener("click", (event) => {
  const node = event.target.closest && event.target.closest("svg.lineage .node");
  if (node) highlightPath(node.ownerSVGElement || node.closest("svg"), node.dataset.id);
});
document.addEventListener("keydown", (event) => {
  const node = event.target.closest && event.target.closest("svg.lineage .node");
  if (node && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    highlightPath(node.closest("svg"), node.dataset.id);
  }
});

// Time travel: the slider picks an instant (UTC), the browser re-renders as of it.
function isoLocal(seconds) {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}
function browse(form) {
  if (window.htmx) window.htmx.trigger(form, "submit"); else form.requestSubmit();
}
document.addEventListener("input", (event) => {
  if (event.target.id === "as-of-slider") {
    document.getElementById("as-of").value = isoLocal(Number(event.target.value));
  }
});
document.addEventListener("change", (event) => {
  if (event.target.id === "as-of-slider" || event.target.id === "as-of") browse(event.target.form);
});
document.addEventListener("click", (event) => {
  if (event.target.id === "now") {
    const form = event.target.form;
    form.querySelector("#as-of").value = "";
    const slider = form.querySelector("#as-of-slider");
    slider.value = slider.max;
    browse(form);
  }
});
