-- The queries users need, for Impala over the tables of create-tables.sql (explained in docs/lookup.md).
-- Parameters are impala-shell variables:  impala-shell --var=run=327636 --var=event=1234567 ... -f queries.sql
-- or copy one query and replace the ${var:...} by values.
-- Every query joins DATASETS first: the (dspid, rgid) of the LOADED datasets select one epoch range of the event
-- tables, and Impala pushes those values to Kudu as runtime filters.

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

-- Q2. All events of a dataset with one trigger bit set. Mask bit b is bit (b % 64) of word column b / 64:
--     L1 TAV item i -> bit 1024 + i -> l1w(16 + i / 64), bit i % 64; HLT physics chain j -> hltw(j / 64), bit j % 64.
--     Example: TAV item 5 -> l1w16, bit 5. A zero word is stored as NULL, and NULL <> 0 is not true, so events
--     without the bit are excluded as they should be.
SELECT e.runnumber, e.eventnumber, e.lumiblocknr, e.db, e.tk
FROM eventindex.loaded_datasets d
JOIN eventindex.events e ON e.dspid = d.dspid AND e.rgid = d.rgid
WHERE d.dataset = '${var:dataset}'
  AND bitand(e.l1w16, shiftleft(cast(1 AS BIGINT), 5)) <> 0
ORDER BY e.eventnumber;

-- Q3. Dataset overlap: datasets sharing events with a given one, with the shared count and the fraction of each.
SELECT a.dataset AS dataset, b.dataset AS other, o.count AS shared_events,
       o.count / (a.count_events - a.num_duplicates) AS fraction_of_dataset,
       o.count / (b.count_events - b.num_duplicates) AS fraction_of_other
FROM eventindex.eventsoverlap o
JOIN eventindex.loaded_datasets a ON a.dspid = o.ds1
JOIN eventindex.loaded_datasets b ON b.dspid = o.ds2
WHERE a.dataset = '${var:dataset}'
ORDER BY o.count DESC;

-- Q4. Trigger counts of a dataset: the most frequent triggers (trig1 = trig2) and pairs. Ids below 512 are L1 TAV
--     items, from 512 HLT physics chains (id - 512).
SELECT if(t.trig1 < 512, concat('L1:', cast(t.trig1 AS STRING)), concat('HLT:', cast(t.trig1 - 512 AS STRING))) AS trigger1,
       if(t.trig2 < 512, concat('L1:', cast(t.trig2 AS STRING)), concat('HLT:', cast(t.trig2 - 512 AS STRING))) AS trigger2,
       t.count AS events
FROM eventindex.triggercount t
JOIN eventindex.loaded_datasets d ON d.dspid = t.dataset_id
WHERE d.dataset = '${var:dataset}'
ORDER BY t.count DESC
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
