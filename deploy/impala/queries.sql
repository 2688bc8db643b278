-- The queries users need, for Impala over the tables of create-tables.sql (explained in docs/lookup.md).
-- Parameters are impala-shell variables (run, event, dataset, item, project):
--   impala-shell --var=run=327636 --var=event=1234567 --var=item=5 --var=project=data17_13TeV \
--                --var=dataset=data17_13TeV.00327636.physics_Main.merge.AOD.f838_m1824 -f queries.sql
-- or copy one query and replace the ${var:...} by values.
-- Every query joins DATASETS first: the (dspid, rgid) of the LOADED datasets select one epoch range of the event
-- tables, and Impala pushes those values to Kudu as runtime filters.
--
-- The same text runs in Spark SQL: it uses only functions and syntax both engines accept (getbit, if, concat_ws,
-- lpad, regexp_replace, CASE, DIV, GROUP BY 1). sql/src/test/.../DocumentedQueriesIT runs every query of this file
-- on a real Kudu through Spark and checks the values; bin/eventindex sql runs it locally:
--   bin/eventindex sql --kudu-master HOST:7051 --var run=327636 ... -f deploy/impala/queries.sql
-- Keep each query's "-- Qn." comment: the test finds the queries by it.

-- Q1. Event picking: run + event -> the files holding the event (own file and RAW/ESD/AOD provenance).
--     For simulation, `run` is the dataset number (DATASETS.runnumber) and the rows are in MCEVENTS.
SELECT d.dataset, e.runnumber, e.eventnumber, e.db, e.tk, e.dbraw, e.tkraw, e.dbesd, e.tkesd, e.dbaod, e.tkaod
FROM eventindex.loaded_datasets d
JOIN eventindex.events e ON e.dspid = d.dspid AND e.rgid = d.rgid
WHERE d.runnumber = ${var:run} AND e.eventnumber = ${var:event} AND e.runnumber = ${var:run}
UNION ALL
SELECT d.dataset, e.runnumber, e.eventnumber, e.db, e.tk, e.dbraw, e.tkraw, e.dbesd, e.tkesd, e.dbaod, e.tkaod
FROM eventindex.loaded_datasets d
JOIN eventindex.mcevents e ON e.dspid = d.dspid AND e.rgid = d.rgid
WHERE d.runnumber = ${var:run} AND e.eventnumber = ${var:event};

-- Q2. All events of a dataset with one L1 trigger item set (TAV, after veto), for real data and simulation.
--     Mask bit b is bit (b % 64) of word column b / 64: TAV item i (0..511) is mask bit 1024 + i, so bit i % 64 of
--     l1w(16 + i DIV 64); the CASE picks that word for ${var:item}, e.g. item 5 -> getbit(l1w16, 5), item 300 ->
--     getbit(l1w20, 44). HLT physics chain j: getbit(hltw<j DIV 64, 3 digits>, j % 64) = 1, e.g. chain 70 ->
--     getbit(e.hltw001, 6) = 1. A zero word is stored as NULL and getbit(NULL, b) is NULL, not 1, so events
--     without the item drop out as they should.
SELECT e.runnumber, e.eventnumber, e.lumiblocknr, e.db, e.tk
FROM eventindex.loaded_datasets d
JOIN (SELECT dspid, rgid, runnumber, eventnumber, lumiblocknr, db, tk,
             l1w16, l1w17, l1w18, l1w19, l1w20, l1w21, l1w22, l1w23 FROM eventindex.events
      UNION ALL
      SELECT dspid, rgid, runnumber, eventnumber, lumiblocknr, db, tk,
             l1w16, l1w17, l1w18, l1w19, l1w20, l1w21, l1w22, l1w23 FROM eventindex.mcevents) e
  ON e.dspid = d.dspid AND e.rgid = d.rgid
WHERE d.dataset = '${var:dataset}'
  AND getbit(CASE ${var:item} DIV 64
               WHEN 0 THEN e.l1w16 WHEN 1 THEN e.l1w17 WHEN 2 THEN e.l1w18 WHEN 3 THEN e.l1w19
               WHEN 4 THEN e.l1w20 WHEN 5 THEN e.l1w21 WHEN 6 THEN e.l1w22 WHEN 7 THEN e.l1w23 END,
             ${var:item} % 64) = 1
ORDER BY e.eventnumber;

-- Q3. Dataset overlap: datasets sharing events with a given one, with the shared count and the fraction of each.
SELECT a.dataset AS dataset, b.dataset AS other, o.count AS shared_events,
       o.count / (a.count_events - a.num_duplicates) AS fraction_of_dataset,
       o.count / (b.count_events - b.num_duplicates) AS fraction_of_other
FROM eventindex.eventsoverlap o
JOIN eventindex.loaded_datasets a ON a.dspid = o.ds1
JOIN eventindex.loaded_datasets b ON b.dspid = o.ds2
WHERE a.dataset = '${var:dataset}'
ORDER BY o.count DESC, b.dataset;

-- Q4. Trigger counts of a dataset: the most frequent triggers (trig1 = trig2) and pairs. Ids below 512 are L1 TAV
--     items, from 512 HLT physics chains (id - 512). Ties are ordered by the ids, so LIMIT cuts the same rows in
--     every engine.
SELECT if(t.trig1 < 512, concat('L1:', cast(t.trig1 AS STRING)), concat('HLT:', cast(t.trig1 - 512 AS STRING))) AS trigger1,
       if(t.trig2 < 512, concat('L1:', cast(t.trig2 AS STRING)), concat('HLT:', cast(t.trig2 - 512 AS STRING))) AS trigger2,
       t.count AS events
FROM eventindex.triggercount t
JOIN eventindex.loaded_datasets d ON d.dspid = t.dataset_id
WHERE d.dataset = '${var:dataset}'
ORDER BY t.count DESC, t.trig1, t.trig2
LIMIT 50;

-- Q5. Duplicates of a dataset: every later copy of an event number, next to the first occurrence's file.
SELECT du.runnumber, du.eventnumber, e.db AS first_file, du.db AS copy_file, du.insertion_time
FROM eventindex.loaded_datasets d
JOIN eventindex.duplicatedevents du ON du.dspid = d.dspid AND du.rgid = d.rgid
LEFT JOIN (SELECT dspid, rgid, eventnumber, db FROM eventindex.events
           UNION ALL SELECT dspid, rgid, eventnumber, db FROM eventindex.mcevents) e
       ON e.dspid = du.dspid AND e.rgid = du.rgid AND e.eventnumber = du.eventnumber
WHERE d.dataset = '${var:dataset}'
ORDER BY du.eventnumber, du.insertion_time;

-- Q6. Completeness per container: task outputs (datasets) of each container, how many are LOADED, events indexed
--     (all rows, duplicates included, as AMI counts them) against AMI's count where known.
SELECT concat_ws('.', project, lpad(cast(runnumber AS STRING), if(project LIKE 'data%', 8, 6), '0'),
                 streamname, prodstep, datatype,
                 regexp_replace(version, '(_tid[0-9]{8}_[0-9]{2}|_sub[0-9]{10})$', '')) AS container,
       count(*) AS datasets,
       sum(if(state = 'LOADED', 1, 0)) AS loaded,
       sum(if(state = 'LOADED', count_events, 0)) AS events_indexed,
       sum(if(state = 'LOADED', num_duplicates, 0)) AS duplicates,
       sum(ami_count) AS events_in_ami,
       sum(if(state = 'LOADED', count_events, 0)) / sum(ami_count) AS completeness
FROM eventindex.datasets
WHERE project = '${var:project}'
GROUP BY 1
ORDER BY 1;
