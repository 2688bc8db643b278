/*
 * The EventIndex supervisor console: draws the view the path names from the supervisor's JSON, and redraws it when
 * the /events stream (Server-Sent Events) reports a change. Read-only. docs/console.md describes the views.
 */
'use strict';
(function () {
  const STATES = ['COLLECTING', 'HELD', 'SIGNAL_PLANNED', 'SIGNALLED', 'FAILED_CONSUMER', 'DONE'];
  const EVENTS = ['ObjectReported', 'ManifestRegistered', 'SignalPlanned', 'SignalSent', 'ReportReceived',
    'ResignalRequested', 'MessageRejected', 'ObjectInvalidated', 'ObjectsDeleted', 'DatasetDeleted',
    'RequestAnswered'];
  const main = document.getElementById('main');
  const live = document.getElementById('live');

  /* ---------- helpers ---------- */

  /** h('a', {href: '/'}, 'text', child...): an element; attributes starting with "on" are listeners. */
  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => {
      if (v === null || v === undefined || v === false) { return; }
      if (k.startsWith('on')) { e.addEventListener(k.substring(2), v); } else { e.setAttribute(k, String(v)); }
    });
    children.flat().forEach(c => {
      if (c !== null && c !== undefined) { e.appendChild(c instanceof Node ? c : document.createTextNode(String(c))); }
    });
    return e;
  }

  async function json(url) {
    const r = await fetch(url, { headers: { Accept: 'application/json' } });
    if (!r.ok) {
      let detail = '';
      try { detail = (await r.json()).error || ''; } catch (ignored) { /* not JSON */ }
      const err = new Error(url + ': HTTP ' + r.status + (detail ? ' ' + detail : ''));
      err.status = r.status;
      throw err;
    }
    return r.json();
  }

  function datasetLink(name) {
    return h('a', { href: '/view/datasets/' + encodeURIComponent(name), class: 'dataset' }, name);
  }

  function state(s) { return h('span', { class: 'state ' + s }, s || '?'); }

  function when(iso) {
    if (!iso) { return '\u2014'; }
    return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
  }

  function age(seconds) {
    if (seconds === null || seconds === undefined || seconds < 0) { return '\u2014'; }
    const s = Math.round(seconds);
    if (s < 120) { return s + ' s'; }
    if (s < 7200) { return Math.round(s / 60) + ' min'; }
    if (s < 172800) { return (s / 3600).toFixed(1) + ' h'; }
    return (s / 86400).toFixed(1) + ' d';
  }

  function num(n) { return n === null || n === undefined ? '\u2014' : Number(n).toLocaleString('en-US'); }

  function bytes(n) {
    if (n === null || n === undefined) { return '\u2014'; }
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0, v = n;
    while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return (i === 0 ? v : v.toFixed(1)) + ' ' + u[i];
  }

  function shellQuote(s) { return /^[A-Za-z0-9_.:\/,@=+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'"; }

  function table(headers, rows, attrs) {
    return h('table', attrs || {},
      h('thead', {}, h('tr', {}, headers.map(c => h('th', { scope: 'col', class: c.num ? 'num' : null },
        c.label || c)))),
      h('tbody', {}, rows));
  }

  function td(v, numeric) { return h('td', { class: numeric ? 'num' : null }, v); }

  function section(title, ...content) { return h('section', {}, h('h2', {}, title), content); }

  /* ---------- views ---------- */

  /** Overview: datasets by state, rates now, consumers, what needs an operator, the last datasets DONE. */
  function overview() {
    const cards = h('div', { class: 'cards', id: 'state-cards' });
    const rates = h('div', { class: 'cards', id: 'rates' });
    const attention = h('div', { id: 'attention' });
    const recent = h('div', { id: 'recent-done' });
    const verify = h('div', { id: 'verify' });
    const plot = h('figure', { class: 'plot', 'data-plot': 'overview-events' },
      h('figcaption', {}, 'Events per second, last 6 hours'), h('div', {}));
    main.append(h('h1', {}, 'Overview'), cards, h('h2', {}, 'Now'), rates,
      section('Needs an operator', attention), section('Kudu against HDFS (scheduled verify)', verify),
      section('Last datasets DONE', recent), h('h2', {}, 'Throughput'),
      h('div', { class: 'cols' }, plot));
    return async function () {
      const [o, done, hist, v] = await Promise.all([json('/console/overview'),
        json('/console/datasets?state=DONE&sort=done&order=desc&limit=10'), json('/console/history?hours=6'),
        json('/console/verify')]);
      verify.replaceChildren(...verifyReport(v));
      cards.replaceChildren(...STATES.map(s => h('div', { class: 'card' },
        h('a', { href: '/view/datasets?state=' + s, 'data-state': s },
          h('span', { class: 'n' }, num(o.datasetsByState[s])), h('span', { class: 'label' }, s)))),
      h('div', { class: 'card' }, h('span', { class: 'n' }, num(o.datasetsRetired)),
        h('span', { class: 'label' }, 'retired (DONE, objects deleted)')));
      rates.replaceChildren(
        card(o.objectsPerSecond.toFixed(2), 'producer objects / s (last ' + age(o.rateWindowSeconds) + ')',
          'objects-per-second'),
        card(o.eventsPerSecond.toFixed(1), 'events / s written (last ' + age(o.rateWindowSeconds) + ')',
          'events-per-second'),
        h('div', { class: 'card' }, h('a', { href: '/view/consumers' },
          h('span', { class: 'n', id: 'consumers-alive' }, (o.consumers - o.consumersMissing) + ' / ' + o.consumers),
          h('span', { class: 'label' }, 'consumers alive (' + o.consumersBusy + ' busy, ' + o.consumersMissing
            + ' missing)'))),
        card(num(o.rejectedMessages), 'messages refused (journalled)', 'rejected'));
      attention.replaceChildren(o.needsOperator.length === 0
        ? h('p', { class: 'muted', id: 'nothing-to-do' }, 'Nothing needs an operator: no dataset is HELD, FAILED or '
          + 'older than ' + age(o.stuckAfterSeconds) + ' without being DONE.')
        : h('ul', { class: 'attention' }, o.needsOperator.map(a => h('li', {}, state(a.state || 'DELETED'), ' ', datasetLink(a.dataset),
          ' \u2014 ' + a.reason + (a.since ? ' (since ' + when(a.since) + ')' : '')))),
      h('p', { class: 'muted' }, 'Dead letters: the supervisor does not watch the broker\'s dead-letter queue; list '
        + 'it with ', h('code', {}, 'eventindex supervisor dead-letters list --brokers ' + o.commands.brokers), '.'));
      recent.replaceChildren(done.rows.length === 0 ? h('p', { class: 'muted' }, 'No dataset is DONE yet.')
        : table(['Dataset', { label: 'Events', num: true }, 'DONE at'],
          done.rows.map(r => h('tr', {}, td(datasetLink(r.name)), td(num(r.expectedEvents), true), td(when(r.doneAt))))));
      eventsPlot(plot.lastChild, hist, 6);
    };
  }

  /** The scheduled verify's findings (/console/verify): each dataset that differs, with the command that repairs it. */
  function verifyReport(v) {
    if (!v.enabled) {
      return [h('p', { class: 'muted' }, 'Off: set ', h('code', {}, v.key), ' to verify one LOADED dataset per '
        + 'interval (eventindex verify runs on demand).')];
    }
    const r = v.report;
    const status = h('p', { class: 'muted', id: 'verify-status' }, num(r.verified) + ' verified, one every '
      + age(r.intervalSeconds) + ' over ' + num(r.loaded) + ' LOADED datasets' + (r.lastAt ? '; last ' + r.lastDataset
      + ' at ' + when(r.lastAt) : '') + (r.lastError ? '; cannot verify: ' + r.lastError : '') + '.');
    if (r.differing.length === 0) {
      return [status, h('p', { id: 'verify-none' }, 'Every dataset verified agrees with its file and catalogue.')];
    }
    return [status, table(['Dataset', 'Verdict', 'Differences', 'Verified at', 'Command'],
      r.differing.map(f => h('tr', {}, td(datasetLink(f.dataset)), td(f.verdict), td(f.differences.join('; ')),
        td(when(f.at)), td(h('code', {}, f.repair)))), { id: 'verify-differing' })];
  }

  function card(value, label, id) {
    return h('div', { class: 'card' }, h('span', { class: 'n', id: id }, value), h('span', { class: 'label' }, label));
  }

  /** Datasets: server-side search, filter, sort and paging (the URL's query keeps them). */
  function datasets() {
    const params = new URLSearchParams(location.search);
    const st = { q: params.get('q') || '', state: params.get('state') || '', age: params.get('age') || '',
      sort: params.get('sort') || 'name', order: params.get('order') || 'asc',
      offset: Number(params.get('offset') || 0), limit: Number(params.get('limit') || 50) };
    const search = h('input', { type: 'search', id: 'search', value: st.q, placeholder: 'part of a name',
      'aria-describedby': 'search-help' });
    const stateSel = h('select', { id: 'state-filter' }, h('option', { value: '' }, 'any'),
      STATES.map(s => h('option', { value: s, selected: s === st.state ? 'selected' : null }, s)));
    const ages = [['', 'any'], ['older:600', 'older than 10 min'], ['older:3600', 'older than 1 h'],
      ['older:86400', 'older than 1 day'], ['younger:3600', 'younger than 1 h']];
    const ageSel = h('select', { id: 'age-filter' },
      ages.map(([v, l]) => h('option', { value: v, selected: v === st.age ? 'selected' : null }, l)));
    const sizeSel = h('select', { id: 'page-size' }, [25, 50, 100, 250].map(n => h('option',
      { value: n, selected: n === st.limit ? 'selected' : null }, n)));
    const body = h('div', { id: 'dataset-table' });
    const status = h('p', { id: 'page-status', role: 'status', 'aria-live': 'polite' });
    const prev = h('button', { type: 'button', id: 'prev-page' }, '\u2190 Previous');
    const next = h('button', { type: 'button', id: 'next-page' }, 'Next \u2192');
    main.append(h('h1', {}, 'Datasets'),
      h('div', { class: 'controls', role: 'search' },
        h('label', { for: 'search' }, 'Name contains', search), h('label', { for: 'state-filter' }, 'State', stateSel),
        h('label', { for: 'age-filter' }, 'Age (from first object or manifest)', ageSel),
        h('label', { for: 'page-size' }, 'Rows per page', sizeSel)),
      h('p', { id: 'search-help', class: 'muted' }, 'Filtered, sorted and paged by the supervisor: a page is at most ',
        '500 rows however many datasets it holds. Press / to search.'),
      body, h('div', { class: 'pager' }, prev, next, status));
    let render;
    const changed = reset => {
      if (reset) { st.offset = 0; }
      const p = new URLSearchParams();
      Object.entries(st).forEach(([k, v]) => {
        if (v !== '' && !(k === 'offset' && v === 0) && !(k === 'limit' && v === 50)) { p.set(k, v); }
      });
      history.replaceState(null, '', location.pathname + (p.toString() ? '?' + p : ''));
      render();
    };
    let timer = null;
    const typed = () => {
      clearTimeout(timer);
      timer = setTimeout(() => { if (st.q !== search.value) { st.q = search.value; changed(true); } }, 250);
    };
    ['input', 'change', 'search'].forEach(ev => search.addEventListener(ev, typed));
    stateSel.addEventListener('change', () => { st.state = stateSel.value; changed(true); });
    ageSel.addEventListener('change', () => { st.age = ageSel.value; changed(true); });
    sizeSel.addEventListener('change', () => { st.limit = Number(sizeSel.value); changed(true); });
    prev.addEventListener('click', () => { st.offset = Math.max(0, st.offset - st.limit); changed(false); });
    next.addEventListener('click', () => { st.offset += st.limit; changed(false); });
    pageKeys = { prev: () => prev.disabled || prev.click(), next: () => next.disabled || next.click() };
    if (params.get('focus') === 'search') { search.focus(); }
    const columns = [['name', 'Name'], ['state', 'State'], ['age', 'Age'], ['objects', 'Objects'],
      [null, 'Selected'], [null, 'Files'], ['events', 'Events'], ['dspid', 'dspid'], ['done', 'DONE at']];
    render = async function () {
      const q = new URLSearchParams({ sort: st.sort, order: st.order, offset: st.offset, limit: st.limit });
      if (st.q) { q.set('q', st.q); }
      if (st.state) { q.set('state', st.state); }
      if (st.age) { const [k, v] = st.age.split(':'); q.set(k === 'older' ? 'minAge' : 'maxAge', v); }
      const page = await json('/console/datasets?' + q);
      const headRow = h('tr', {}, columns.map(([key, label], i) => {
        const numeric = i >= 3 && i <= 7;
        if (!key) { return h('th', { scope: 'col', class: numeric ? 'num' : null }, label); }
        const sorted = st.sort === key;
        return h('th', { scope: 'col', class: numeric ? 'num' : null,
          'aria-sort': sorted ? (st.order === 'asc' ? 'ascending' : 'descending') : 'none' },
        h('button', { type: 'button', 'data-sort': key, onclick: () => {
          st.order = sorted && st.order === 'asc' ? 'desc' : 'asc';
          st.sort = key;
          changed(false);
        } }, label + (sorted ? (st.order === 'asc' ? ' \u25b2' : ' \u25bc') : '')));
      }));
      const rows = page.rows.map(r => h('tr', { 'data-dataset': r.name }, td(datasetLink(r.name)), td(state(r.state)),
        td(age(r.ageSeconds), true), td(num(r.objectsReported), true), td(num(r.selectedObjects), true),
        td(r.expectedFiles < 0 ? '?' : num(r.expectedFiles), true), td(num(r.expectedEvents), true),
        td(r.dspid === null ? '\u2014' : r.dspid, true), td(when(r.doneAt))));
      body.replaceChildren(h('table', { id: 'datasets' }, h('thead', {}, headRow), h('tbody', {}, rows)));
      status.textContent = page.total === 0 ? 'No dataset matches.'
        : 'Rows ' + (page.offset + 1) + '\u2013' + (page.offset + page.rows.length) + ' of ' + num(page.total);
      prev.disabled = page.offset === 0;
      next.disabled = page.offset + page.rows.length >= page.total;
    };
    return () => render();
  }

  /** One dataset: timeline, counts, objects, the HDFS file, Kudu counts, last error, operator commands. */
  function dataset(name) {
    const head = h('div', {});
    const body = h('div', { id: 'dataset-body' });
    main.append(h('h1', {}, 'Dataset ', h('span', { id: 'dataset-name' }, name)), head, body);
    return async function () {
      let v, objs, o, asked;
      try {
        [v, objs, o, asked] = await Promise.all([json('/datasets/' + encodeURIComponent(name)),
          json('/console/objects/' + encodeURIComponent(name)), json('/console/overview'),
          json('/console/requests/' + encodeURIComponent(name))]);
      } catch (e) {
        if (e.status === 404) {
          head.replaceChildren(h('p', { class: 'error' }, 'The supervisor does not know dataset ' + name + '.'));
          body.replaceChildren();
          return;
        }
        throw e;
      }
      const c = v.consumer || {};
      const t = v.times || {};
      head.replaceChildren(h('p', {}, state(v.state), ' ', h('span', { id: 'dataset-state' }, v.state),
        v.retiredAt ? ' \u2014 retired at ' + when(v.retiredAt) + ' (its objects deleted; only counts are kept)' : '',
        v.deletedAt ? ' \u2014 deleted at ' + when(v.deletedAt) : ''));
      const steps = [['First object', t.firstObjectAt], ['Last object', t.lastObjectAt],
        ['File list (manifest)', t.manifestAt], ['Complete: signal planned', t.signalPlannedAt],
        ['Signal sent', t.signalSentAt],
        ['Consumer started (its report\'s time less its duration)', c.reportedAt
          ? new Date(Date.parse(c.reportedAt) - (c.durationMillis || 0)).toISOString() : null],
        ['HDFS commit and Kudu load (reported by the consumer)', c.reportedAt],
        ['DONE', t.doneAt]];
      const timeline = h('ol', { class: 'timeline', id: 'timeline' }, steps.map(([label, at]) =>
        h('li', { class: at ? 'reached' : null }, h('strong', {}, label), ': ', when(at))));
      const counts = [['Expected files', v.expectedFiles < 0 ? 'unknown (no file list)' : num(v.expectedFiles)],
        ['Files with an object', num(v.filesWithCandidate)], ['Objects reported', num(v.objectsReported)],
        ['Selected', num(objs.retired ? v.objectsReported : objs.byFate.selected)],
        ['Duplicate', num(objs.byFate.duplicate)], ['Late', num(objs.byFate.late)],
        ['Invalid', num(objs.byFate.invalid)], ['Expected events', num(v.expectedEvents)],
        ['dspid / epoch', (v.dspid === null ? '\u2014' : v.dspid) + ' / ' + (v.epoch === null ? '\u2014' : v.epoch)],
        ['Signal', v.signalId || '\u2014'], ['Re-signals (automatic)', v.resignals + ' (' + v.automaticResignals + ')'],
        ['Failures of this signal', num(v.failures)], ['Traversal time', v.times.traversalTime || '\u2014']];
      const kudu = [['Consumer', c.consumer || '\u2014'], ['Status', c.status || '\u2014'],
        ['HDFS file', c.hdfsPath || '\u2014'], ['Events written', num(c.eventsWritten)],
        ['Kudu rows loaded', num(c.eventsLoaded)], ['Duplicate events', num(c.duplicateEvents)],
        ['Objects read', num(c.objectsRead)], ['Bytes read', bytes(c.bytesRead)],
        ['Reported at', when(c.reportedAt)]];
      const errors = [];
      if (v.heldReason) { errors.push('HELD: ' + v.heldReason); }
      if (c.status === 'FAILED' && c.internalError) {
        errors.push('Consumer INTERNAL ERROR (a bug in the consumer, not a fault of the data; not retried, the objects'
          + ' are kept: resignal once the consumer is fixed): ' + c.reason);
      } else if (c.status === 'FAILED') {
        errors.push('Consumer FAILED' + (c.permanent ? ' (permanent)' : '') + ': ' + c.reason);
      }
      if (v.lastResignalReason) { errors.push('Last re-signal: ' + v.lastResignalReason); }
      (v.lateConflicts || []).forEach(x => errors.push('Late object ' + x.url + ' disagrees with the signal on ' + x.guid
        + ': it claims ' + num(x.lateEvents) + ' events, the signal takes ' + num(x.signalledEvents) + ' from '
        + x.signalledUrl + (x.lateEvents === x.signalledEvents ? ' (other run ranges)' : '')
        + '. The dataset is loaded from the signalled object; invalidate that one if it is the wrong one.'));
      if (v.waitingFor) { errors.push('Waiting for: ' + v.waitingFor); }
      const facts = list => h('dl', { class: 'facts' }, list.flatMap(([k, val]) => [h('dt', {}, k), h('dd', {}, val)]));
      const objectRows = objs.objects.map(r => h('tr', { 'data-fate': r.fate }, td(h('code', {}, r.url)),
        td(h('span', { class: 'fate-' + r.fate }, r.fate + (r.deleted ? ' (deleted)' : ''))), td(bytes(r.size), true),
        td(num(r.events), true), td(num(r.guids.length), true), td(r.jobId || '\u2014'),
        td(r.invalidReason || '')));
      body.replaceChildren(
        h('div', { class: 'cols' }, section('Timeline', timeline,
          h('p', { class: 'muted' }, 'The consumer reports its HDFS commit and Kudu load together, in its DONE report.')),
        section('Counts', facts(counts)), section('HDFS file and Kudu counts (DONE report)', facts(kudu))),
        section('Last error', errors.length === 0 ? h('p', { class: 'muted', id: 'last-error' }, 'None.')
          : h('ul', { id: 'last-error' }, errors.map(e => h('li', { class: 'error' }, e)))),
        section('Objects', objs.retired ? h('p', { class: 'muted' }, 'Retired: the object list is no longer kept.')
          : table(['Object', 'Fate', { label: 'Size', num: true }, { label: 'Events', num: true },
            { label: 'Files', num: true }, 'Producer job', 'Why invalid'], objectRows, { id: 'objects' })),
        section('Operator requests', asked.length === 0
          ? h('p', { class: 'muted', id: 'requests' }, 'No operator request named this dataset.')
          : table(['Outcome', 'What', 'Who asked'], asked.map(r => h('tr', {}, td(r.outcome), td(r.detail), td(r.by))),
            { id: 'requests' })),
        section('Operator commands', commands(v, objs, o.commands)));
    };
  }

  function commands(v, objs, cmd) {
    const ds = shellQuote(v.name), brokers = cmd.brokers || 'BROKERS';
    const out = [];
    const add = (what, line) => out.push(h('p', {}, what), h('pre', { class: 'cmd', tabindex: 0 }, line));
    if (['SIGNALLED', 'FAILED_CONSUMER', 'DONE'].includes(v.state) && !v.retiredAt && !v.deletedAt) {
      add('Send the signal again (same signalId):',
        'eventindex supervisor resignal --brokers ' + brokers + ' --dataset ' + ds);
    }
    if (!v.retiredAt && !v.deletedAt && objs.objects.length > 0) {
      const o = objs.objects.find(x => x.fate === 'selected') || objs.objects[0];
      add('Never select an object again (the dataset is selected anew):',
        'eventindex supervisor invalidate --brokers ' + brokers + ' --dataset ' + ds + ' --url '
        + shellQuote(o.url) + " --reason 'WHY'");
    }
    if (!['SIGNAL_PLANNED', 'SIGNALLED'].includes(v.state) && !v.deletedAt) {
      add('Delete the dataset everywhere (S3 objects, HDFS file, Kudu rows):',
        'eventindex supervisor delete-dataset --brokers ' + brokers + ' --dataset ' + ds
        + ' --hdfs-uri HDFS_URI --kudu-masters ' + (cmd.kuduMasters || 'KUDU_MASTERS') + " --reason 'WHY'");
    }
    if (v.deletedAt && v.finishWith) {
      add('Finish the delete (left: ' + v.stepsLeft.join(', ') + '; add your broker login, TLS and Kerberos options):',
        v.finishWith);
    }
    return out.length === 0 ? h('p', { class: 'muted' }, 'No operator command applies in this state.')
      : h('div', { id: 'commands' }, out);
  }

  /** Consumers: heartbeat, dataset in flight with progress, rate, failures; the signals out. */
  function consumers() {
    const list = h('div', { id: 'consumer-table' });
    const flight = h('div', { id: 'in-flight' });
    main.append(h('h1', {}, 'Consumers'), list, section('Signals out (no report yet)', flight));
    return async function () {
      const c = await json('/consumers');
      list.replaceChildren(c.consumers.length === 0 ? h('p', { class: 'muted' }, 'No consumer heard from yet.')
        : table(['Consumer', 'Heartbeat', { label: 'Age', num: true }, 'In flight', 'Progress',
          { label: 'Events/s', num: true }, { label: 'DONE', num: true }, { label: 'FAILED', num: true },
          'Last failure'], c.consumers.map(x => {
          const hb = x.heartbeat;
          const busy = hb && hb.state === 'busy' && hb.dataset;
          const progress = busy && hb.objects > 0 && hb.objectsRead >= 0
            ? h('span', {}, h('span', { class: 'progress', role: 'progressbar', 'aria-valuemin': 0,
              'aria-valuemax': hb.objects, 'aria-valuenow': hb.objectsRead },
            h('span', { style: null, 'data-w': Math.round(100 * hb.objectsRead / hb.objects) })),
            ' ' + hb.objectsRead + '/' + hb.objects + ' objects') : '\u2014';
          return h('tr', { 'data-consumer': x.consumer }, td(x.consumer),
            td(hb ? h('span', { class: hb.missing ? 'error' : null }, hb.state) : 'none since start'),
            td(hb ? age(hb.ageSeconds) : '\u2014', true), td(busy ? datasetLink(hb.dataset) : '\u2014'), td(progress),
            td(x.eventsPerSecond.toFixed(1), true), td(num(x.datasetsDone), true), td(num(x.datasetsFailed), true),
            td(x.lastFailure || ''));
        }), { id: 'consumers' }));
      list.querySelectorAll('.progress span[data-w]').forEach(s => { s.style.width = s.dataset.w + '%'; });
      flight.replaceChildren(c.inFlight.length === 0 ? h('p', { class: 'muted' }, 'None.')
        : table(['Dataset', 'State', 'Sent at', { label: 'Objects', num: true }, { label: 'Events', num: true },
          { label: 'Re-signals', num: true }], c.inFlight.map(f => h('tr', {}, td(datasetLink(f.dataset)),
          td(state(f.state)), td(when(f.sentAt)), td(num(f.objects), true), td(num(f.expectedEvents), true),
          td(num(f.resignals), true)))));
    };
  }

  function eventsPlot(container, hist, hours) {
    const now = Date.parse(hist.now);
    const perMinute = hours <= 24;
    const rows = perMinute ? hist.minutes : hist.perHour;
    const per = perMinute ? 60 : 3600;
    Plot.line(container, [
      { name: 'events/s written', points: rows.map(m => [m.minute, m.events / per]) },
      { name: 'producer objects/s', points: rows.map(m => [m.minute, m.objects / per]) }],
    { label: 'Events and producer objects per second, ' + (perMinute ? 'per minute' : 'per hour') + ', last '
      + hours + ' h', yLabel: 'per second', from: now - hours * 3600000, to: now, gap: per * 1000 * 1.5 });
  }

  /** The seed's plots, from /console/history. */
  function plots() {
    const range = h('select', { id: 'plot-range' }, [[1, 'last hour'], [6, 'last 6 h'], [24, 'last 24 h'],
      [0, 'whole history (per hour)']].map(([v, l]) => h('option', { value: v, selected: v === 24 ? 'selected' : null },
      l)));
    const fig = (id, caption) => h('figure', { class: 'plot', 'data-plot': id }, h('figcaption', {}, caption),
      h('div', {}));
    const f = { eps: fig('events-per-second', 'Events per second over time (consolidated)'),
      done: fig('datasets-per-hour', 'Datasets completed per hour'),
      time: fig('consumer-time', 'Consumer time against dataset size'),
      sizes: fig('object-sizes', 'Object size distribution'),
      dup: fig('duplicate-fraction', 'Duplicate fraction per dataset') };
    const note = h('p', { class: 'muted', id: 'history-note' });
    main.append(h('h1', {}, 'Plots'), h('div', { class: 'controls' }, h('label', { for: 'plot-range' },
      'Time range', range)), note, h('div', { class: 'cols plots' }, Object.values(f)));
    let render;
    range.addEventListener('change', () => render());
    render = async function () {
      const sel = Number(range.value);
      const hist = await json('/console/history?hours=' + (sel || 24));
      const hours = sel || hist.days * 24;
      note.textContent = 'The supervisor keeps ' + hist.days + ' days of per-minute history (supervisor.history.days)'
        + ' in its checkpoint; per-dataset plots show the last ' + hist.datasets.length + ' datasets DONE.';
      eventsPlot(f.eps.lastChild, hist, hours);
      const byHour = new Map(hist.perHour.map(m => [m.minute, m.datasetsDone]));
      const lastHour = Math.floor(Date.parse(hist.now) / 3600000) * 3600000;
      const slots = [];
      for (let t = lastHour - (Math.max(hours, 24) - 1) * 3600000; t <= lastHour; t += 3600000) { slots.push(t); }
      Plot.bars(f.done.lastChild, slots.map(t => ({ label: new Date(t).toISOString().substring(11, 16),
        value: byHour.get(t) || 0, title: new Date(t).toISOString().substring(0, 13) + 'h UTC: '
          + (byHour.get(t) || 0) + ' datasets DONE' })),
      { label: 'Datasets DONE per hour', xLabel: 'hour (UTC)', yLabel: 'datasets' });
      Plot.scatter(f.time.lastChild, hist.datasets.map(d => ({ x: d.events, y: d.consumerMillis / 1000,
        title: d.dataset + ': ' + d.events + ' events in ' + (d.consumerMillis / 1000).toFixed(1) + ' s' })),
      { label: 'Consumer time against dataset size', xLabel: 'events in the dataset', yLabel: 'consumer time (s)' });
      Plot.bars(f.sizes.lastChild, hist.objectSizes.map(b => ({ label: Plot.fmt(b.from) + 'B', value: b.objects,
        title: b.objects + ' objects of ' + b.from + ' to ' + b.to + ' bytes' })),
      { label: 'Objects by size (powers of two)', xLabel: 'object size (from)', yLabel: 'objects' });
      const last = hist.datasets.slice(-60);
      Plot.bars(f.dup.lastChild, last.map(d => ({ label: (d.dataset.split('.')[1] || d.dataset).slice(-5),
        value: d.objects > 0 ? d.duplicates / d.objects : 0,
        title: d.dataset + ': ' + d.duplicates + ' of ' + d.objects + ' objects duplicate' })),
      { label: 'Duplicate fraction of the last datasets DONE', xLabel: 'dataset (run number, oldest first)',
        yLabel: 'duplicates / objects' });
    };
    return () => render();
  }

  /* ---------- routing, live updates, keys ---------- */

  let pageKeys = null;
  const path = location.pathname;
  let view, viewName, focusDataset = null;
  if (path === '/') {
    viewName = 'overview'; view = overview();
  } else if (path === '/view/datasets') {
    viewName = 'datasets'; view = datasets();
  } else if (path.startsWith('/view/datasets/')) {
    viewName = 'datasets'; focusDataset = decodeURIComponent(path.substring('/view/datasets/'.length));
    view = dataset(focusDataset);
  } else if (path === '/view/consumers') {
    viewName = 'consumers'; view = consumers();
  } else {
    viewName = 'plots'; view = plots();
  }
  document.querySelectorAll('nav a[data-view]').forEach(a => {
    if (a.dataset.view === viewName) { a.setAttribute('aria-current', 'page'); }
  });
  const errorBox = h('p', { class: 'error', id: 'load-error', role: 'alert', hidden: 'hidden' });
  main.prepend(errorBox);

  /* The role badge: active, or a standby naming the active one (a standby has no state to show). */
  const roleBadge = h('span', { id: 'role', class: 'role', role: 'status' });
  live.after(roleBadge);
  async function showRole() {
    try {
      const r = await json('/console/role');
      roleBadge.className = 'role ' + r.role;
      roleBadge.textContent = r.role + (r.standby ? (r.id ? ' ' + r.id : '') + ' (token ' + r.token + ')' : '')
        + (r.role === 'standby' && r.activeHolder ? '; active: ' + r.activeHolder : '');
      roleBadge.title = r.reason || '';
    } catch (e) {
      roleBadge.className = 'role unknown'; roleBadge.textContent = 'role unknown';
    }
  }
  showRole();
  setInterval(showRole, 5000);

  let running = false, again = false, updates = 0;
  async function refresh() {
    if (running) { again = true; return; }
    running = true;
    try {
      await showRole();
      await view();
      errorBox.hidden = true;
      updates++;
      main.setAttribute('data-updates', updates);
    } catch (e) {
      errorBox.textContent = 'Could not load: ' + e.message;
      errorBox.hidden = false;
    } finally {
      running = false;
      if (again) { again = false; schedule(); }
    }
  }

  let pending = null;
  function schedule() {
    if (pending === null) { pending = setTimeout(() => { pending = null; refresh(); }, 300); }
  }

  function connect() {
    const es = new EventSource('/events');
    es.onopen = () => { live.textContent = 'live'; live.className = 'live on'; };
    es.onerror = () => { live.textContent = 'reconnecting'; live.className = 'live off'; };
    EVENTS.forEach(name => es.addEventListener(name, ev => {
      if (focusDataset !== null) {
        try {
          const change = JSON.parse(ev.data);
          if (change.dataset && change.dataset !== focusDataset && name !== 'ReportReceived') { return; }
        } catch (ignored) { /* redraw anyway */ }
      }
      schedule();
    }));
    window.addEventListener('pagehide', () => es.close());
  }

  document.addEventListener('keydown', e => {
    const t = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey || (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT'
      || t.tagName === 'TEXTAREA'))) {
      return;
    }
    const go = { 1: '/', 2: '/view/datasets', 3: '/view/consumers', 4: '/view/plots' }[e.key];
    if (go) { location.href = go; } else if (e.key === 'r') { refresh(); } else if (e.key === '/') {
      const s = document.getElementById('search');
      e.preventDefault();
      if (s) { s.focus(); } else { location.href = '/view/datasets?focus=search'; }
    } else if (e.key === '[' && pageKeys) { pageKeys.prev(); } else if (e.key === ']' && pageKeys) { pageKeys.next(); }
  });

  refresh();
  connect();
}());
