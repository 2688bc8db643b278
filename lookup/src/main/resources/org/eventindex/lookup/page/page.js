// The physicists' page of the lookup service: event lookups through POST /lookup, a dataset's status and figures
// through GET /datasets/... Same origin only, so the service's TLS and authentication apply to every request.
"use strict";
(() => {
  const $ = id => document.getElementById(id);
  let last = null; // the last POST /lookup answer, for the downloads
  let lookups = 0; // answered lookups, in data-lookups (a test waits for its n-th)

  function td(text, cls) {
    const c = document.createElement("td");
    c.textContent = text === null || text === undefined ? "" : String(text);
    if (cls) c.className = cls;
    return c;
  }

  function message(id, text, isError) {
    $(id).textContent = text;
    $(id).classList.toggle("error", !!isError);
  }

  /** The miss explanation in one line, as the command's --csv writes it. */
  function explanation(r) {
    const e = r.explanation;
    if (!e) return r.error || "";
    const s = (e.reasons || []).map(x => x.message).join("; ");
    return e.caveat ? `${s} [${e.caveat}]` : s;
  }

  function filterQuery() {
    const q = new URLSearchParams();
    for (const [id, name] of [["stream-type", "stream-type"], ["project", "project"], ["ami-tag", "ami-tag"],
                              ["dataset-filter", "dataset"]]) {
      const v = $(id).value.trim();
      if (v) q.set(name, v);
    }
    const s = q.toString();
    return s ? "?" + s : "";
  }

  async function errorText(resp) {
    const text = await resp.text();
    try {
      return JSON.parse(text).error || text;
    } catch (e) {
      return text || resp.statusText;
    }
  }

  async function lookup(lines, what) {
    message("lookup-message", `Looking up ${what}...`);
    $("events").dataset.state = "loading";
    let resp;
    try {
      resp = await fetch("/lookup" + filterQuery(), { method: "POST", body: lines,
        headers: { "Content-Type": "text/plain" } });
    } catch (e) {
      message("lookup-message", `The lookup service did not answer: ${e.message}`, true);
      $("events").dataset.state = "error";
      return;
    }
    if (resp.status !== 200) {
      const retry = resp.headers.get("Retry-After");
      message("lookup-message", `${resp.status}: ${await errorText(resp)}` + (retry ? ` (retry in ${retry} s)` : ""),
        true);
      $("events").dataset.state = "error";
      return;
    }
    last = await resp.json();
    show(last, what);
    $("events").dataset.lookups = String(++lookups);
    $("events").dataset.state = "done";
  }

  function show(answer, what) {
    const results = answer.results || [];
    const found = results.filter(r => r.status === "FOUND").length;
    const failed = results.filter(r => r.status === "ERROR").length;
    message("lookup-message", `${what}: ${results.length} event(s), ${found} found, `
      + `${results.length - found - failed} not found` + (failed ? `, ${failed} failed` : "")
      + (answer.errors.length ? `, ${answer.errors.length} line(s) not understood` : "")
      + (answer.duplicates.length ? `, ${answer.duplicates.length} repeated line(s) looked up once` : ""),
      failed > 0);
    const errs = $("input-errors");
    errs.replaceChildren(...answer.errors.concat(answer.duplicates).map(t => {
      const li = document.createElement("li");
      li.textContent = t;
      return li;
    }));
    const body = $("results").tBodies[0];
    const rows = [];
    for (const r of results) {
      const matches = r.matches.length ? r.matches : [null];
      for (const m of matches) {
        const tr = document.createElement("tr");
        tr.className = r.status;
        tr.append(td(r.run, "num"), td(r.event, "num"), td(r.status));
        if (m) {
          tr.append(td(m.type), td(m.guid, "mono guid"), td(m.dataset), td(m.token, "mono token"));
        } else {
          // a miss: why, across the match columns
          const why = td(explanation(r), "why");
          why.colSpan = 4;
          tr.append(why);
        }
        rows.push(tr);
      }
    }
    body.replaceChildren(...rows);
    $("results").hidden = false;
    $("result-actions").hidden = false;
  }

  function csvCell(v) {
    if (v === null || v === undefined) return "";
    const s = String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  }

  /** The command's --csv --explain format: one row per match, one row per event not found. */
  function csv(answer) {
    const out = ["run,event,status,guid,type,token,dataset,duplicate,explanation"];
    for (const r of answer.results) {
      if (r.status !== "FOUND") {
        out.push(`${r.run},${r.event},${r.status},,,,,,${csvCell(explanation(r))}`);
        continue;
      }
      for (const m of r.matches) {
        out.push([r.run, r.event, "FOUND", m.guid, m.type, m.token, m.dataset, m.duplicate, ""].map(csvCell)
          .join(","));
      }
    }
    return out.join("\n") + "\n";
  }

  function download(name, type, text) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  /** Tab-separated, as a spreadsheet pastes it. */
  function tableText() {
    const rows = [...$("results").rows].map(tr => [...tr.cells].map(c => c.textContent).join("\t"));
    return rows.join("\n") + "\n";
  }

  async function copy() {
    const text = tableText();
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      // no clipboard API (plain HTTP, or not allowed): select the text for Ctrl+C
      const area = document.createElement("textarea");
      area.value = text;
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    message("lookup-message", `Copied ${$("results").tBodies[0].rows.length} row(s) as tab-separated text.`);
  }

  /* ---------- a dataset ---------- */

  const panels = ["status", "triggers", "overlaps", "runs", "lumiblocks", "duplicates"];

  function panel(id, state, ...content) {
    $(id).dataset.state = state;
    $(id).querySelector(".body").replaceChildren(...content);
  }

  function p(text, cls) {
    const e = document.createElement("p");
    e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function table(headers, rows) {
    const t = document.createElement("table");
    const h = t.createTHead().insertRow();
    headers.forEach(x => {
      const th = document.createElement("th");
      th.textContent = x;
      h.appendChild(th);
    });
    const b = t.createTBody();
    rows.forEach(r => {
      const tr = b.insertRow();
      r.forEach(v => tr.appendChild(td(v, typeof v === "number" ? "num" : undefined)));
    });
    return t;
  }

  async function getJson(path) {
    const resp = await fetch(path);
    const body = await resp.text();
    let json = null;
    try {
      json = JSON.parse(body);
    } catch (e) {
      // not JSON: said with the status below
    }
    return { status: resp.status, json, error: (json && json.error) || body || resp.statusText };
  }

  /** One panel: its figure fetched and drawn, or the reason it could not be. */
  async function load(id, path, draw) {
    panel(id, "loading", p("Loading..."));
    try {
      const r = await getJson(path);
      if (r.status === 200 && r.json) {
        panel(id, "loaded", ...draw(r.json));
      } else {
        panel(id, r.status === 404 ? "unavailable" : "error", p(`Not available: ${r.error}`, "unavailable"));
      }
    } catch (e) {
      panel(id, "error", p(`Not available: ${e.message}`, "unavailable"));
    }
  }

  function status(s) {
    const dl = document.createElement("dl");
    dl.className = "status";
    const add = (k, v) => {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.textContent = v;
      dl.append(dt, dd);
    };
    add("state", s.state);
    if (s.objects && (s.objects.received > 0 || s.objects.expected !== null)) {
      add("objects", `${s.objects.received} received of ${s.objects.expected ?? "?"} expected`);
    }
    if (s.events !== null && s.events !== undefined) add("events", Plots.fmt(s.events));
    const out = [dl];
    if (s.estimate) {
      const at = s.estimate.queryableAt;
      add("queryable", !at ? "no estimate" : s.state === "QUERYABLE" ? `since ${at}`
        : `${at} (in ${Math.round(s.estimate.seconds)} s)`);
      if (s.estimate.basis) add("estimate from", s.estimate.basis);
    }
    if (s.stages && s.stages.length) {
      out.push(table(["stage", "started", "ended", "seconds"], s.stages.map(x => [x.stage, x.startedAt ?? "",
        x.endedAt ?? "", x.seconds === null || x.seconds === undefined ? "" : Number(x.seconds.toFixed(2))])));
    }
    return out;
  }

  function triggers(j) {
    if (!j.triggers.length) return [p("No trigger fired in this dataset (TRIGGERCOUNT has no row of it).")];
    return [Plots.bars(j.triggers.map(t => ({ label: t.name, value: t.count })), "events per trigger")];
  }

  function overlaps(j) {
    if (!j.chains.length) return [p("No trigger fired in this dataset.")];
    const out = [Plots.matrix(j.chains, j.matrix, "events in which both triggers fired")];
    out.push(p(`Events in which both fired; the diagonal: the trigger alone.`
      + (j.truncated ? ` The ${j.chains.length} of ${j.triggers} triggers that fired most.` : "")));
    return out;
  }

  function runs(j) {
    return [p(`${Plots.fmt(j.events)} events in ${j.counts.length} run(s).`),
      Plots.bars(j.counts.map(c => ({ label: String(c.run), value: c.events })), "events per run"),
      table(["run", "events"], j.counts.map(c => [c.run, c.events]))];
  }

  function lumiblocks(j) {
    const many = new Set(j.counts.map(c => c.run)).size > 1;
    return [p(`${Plots.fmt(j.events)} events in ${j.counts.length} lumiblock(s).`),
      Plots.columns(j.counts.map(c => ({ label: many ? `${c.run}/${c.lumiblock}` : String(c.lumiblock),
        value: c.events })), "events per lumiblock"),
      table(["run", "lumiblock", "events"], j.counts.map(c => [c.run, c.lumiblock, c.events]))];
  }

  function duplicates(j) {
    const out = [p(`${Plots.fmt(j.duplicates)} duplicate row(s)`
      + (j.duplicatedEvents !== undefined ? ` of ${Plots.fmt(j.duplicatedEvents)} event(s)` : "")
      + (j.truncated ? `; the first ${j.rows.length} shown.` : "."))];
    if (j.rows.length) {
      out.push(table(["run", "event", "file of the copy", "file of the first occurrence", "inserted"],
        j.rows.map(r => [r.run, r.event, r.file, r.firstFile, r.insertedAt])));
    }
    return out;
  }

  async function showDataset(name) {
    name = name.trim();
    if (!name) {
      message("dataset-message", "Give a dataset name.", true);
      return;
    }
    const url = new URL(location.href);
    url.searchParams.set("dataset", name);
    history.replaceState(null, "", url);
    message("dataset-message", "");
    $("dataset-panels").hidden = false;
    document.body.dataset.dataset = "loading";
    const base = "/datasets/" + encodeURIComponent(name);
    await Promise.all([
      load("status", base, status),
      load("triggers", base + "/triggers", triggers),
      load("overlaps", base + "/trigger-overlaps", overlaps),
      load("runs", base + "/counts?by=run", runs),
      load("lumiblocks", base + "/counts?by=lumiblock", lumiblocks),
      load("duplicates", base + "/duplicates", duplicates),
    ]);
    const failed = panels.filter(id => $(id).dataset.state === "error");
    if (failed.length) message("dataset-message", `Could not load: ${failed.join(", ")}.`, true);
    document.body.dataset.dataset = "done";
  }

  /* ---------- wiring ---------- */

  $("typed-form").addEventListener("submit", ev => {
    ev.preventDefault();
    lookup(`${$("typed-run").value.trim()} ${$("typed-event").value.trim()}\n`, "run " + $("typed-run").value.trim()
      + " event " + $("typed-event").value.trim());
  });
  $("list-go").addEventListener("click", () => lookup($("list").value, "the list"));
  $("file").addEventListener("change", () => {
    const f = $("file").files[0];
    if (!f) return;
    f.text().then(text => lookup(text, f.name),
      e => message("lookup-message", `Could not read ${f.name}: ${e.message}`, true));
  });
  $("copy").addEventListener("click", copy);
  $("download-csv").addEventListener("click", () => download("lookup.csv", "text/csv", csv(last)));
  $("download-json").addEventListener("click", () => download("lookup.json", "application/json",
    JSON.stringify(last, null, 2) + "\n"));
  $("dataset-form").addEventListener("submit", ev => {
    ev.preventDefault();
    showDataset($("dataset").value);
  });
  const asked = new URLSearchParams(location.search).get("dataset");
  if (asked) {
    $("dataset").value = asked;
    showDataset(asked);
  }
  document.body.dataset.ready = "true";
})();
