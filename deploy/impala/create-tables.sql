-- Exposes the EventIndex Kudu tables to Impala (external tables: dropping them in Impala leaves Kudu untouched).
-- Impala reads the columns, key and partitioning from Kudu, so no column list is given here; tables of a newer
-- loader version (added columns) only need `INVALIDATE METADATA eventindex.<table>`.
--
-- Run:  impala-shell -i <impalad> --var=prefix= --var=masters=kudu-m1:7051,kudu-m2:7051,kudu-m3:7051 \
--                    -f deploy/impala/create-tables.sql
-- `prefix` is the loader's table name prefix (KuduTablesConfig.prefix, usually empty); `masters` may be left out
-- when Impala's --kudu_master_hosts is set (then drop the 'kudu.master_addresses' properties).
CREATE DATABASE IF NOT EXISTS eventindex
  COMMENT 'ATLAS-style EventIndex on Kudu: datasets, events, duplicates, overlaps, trigger counts';

-- One row per dataset; readers must use only state = 'LOADED' rows.
CREATE EXTERNAL TABLE IF NOT EXISTS eventindex.datasets STORED AS KUDU
  TBLPROPERTIES ('kudu.table_name' = '${var:prefix}DATASETS', 'kudu.master_addresses' = '${var:masters}');

-- First occurrence of every event of a real-data dataset; key (dspid, eventnumber, rgid).
CREATE EXTERNAL TABLE IF NOT EXISTS eventindex.events STORED AS KUDU
  TBLPROPERTIES ('kudu.table_name' = '${var:prefix}EVENTS', 'kudu.master_addresses' = '${var:masters}');

-- The same for simulation datasets (provenance columns NULL).
CREATE EXTERNAL TABLE IF NOT EXISTS eventindex.mcevents STORED AS KUDU
  TBLPROPERTIES ('kudu.table_name' = '${var:prefix}MCEVENTS', 'kudu.master_addresses' = '${var:masters}');

-- Later occurrences of an event number within one dataset; key (dspid, eventnumber, rgid, insertion_time).
CREATE EXTERNAL TABLE IF NOT EXISTS eventindex.duplicatedevents STORED AS KUDU
  TBLPROPERTIES ('kudu.table_name' = '${var:prefix}DUPLICATEDEVENTS', 'kudu.master_addresses' = '${var:masters}');

-- (ds1, ds2) -> events of ds1 whose (run, event) is also in ds2; one row per direction.
CREATE EXTERNAL TABLE IF NOT EXISTS eventindex.eventsoverlap STORED AS KUDU
  TBLPROPERTIES ('kudu.table_name' = '${var:prefix}EVENTSOVERLAP', 'kudu.master_addresses' = '${var:masters}');

-- (dataset_id, trig1, trig2) -> events where both fired; ids 0..511 L1 TAV items, 512 + j HLT physics chain j.
CREATE EXTERNAL TABLE IF NOT EXISTS eventindex.triggercount STORED AS KUDU
  TBLPROPERTIES ('kudu.table_name' = '${var:prefix}TRIGGERCOUNT', 'kudu.master_addresses' = '${var:masters}');

-- Dataset names as users write them, LOADED datasets only. The run field is padded as DatasetName does: 8 digits
-- for data* projects, 6 for the others; `container` is the name without the _tid/_sub task suffix.
CREATE VIEW IF NOT EXISTS eventindex.loaded_datasets AS
SELECT concat_ws('.', project,
                 lpad(cast(runnumber AS STRING), if(project LIKE 'data%', 8, 6), '0'),
                 streamname, prodstep, datatype, version) AS dataset,
       concat_ws('.', project,
                 lpad(cast(runnumber AS STRING), if(project LIKE 'data%', 8, 6), '0'),
                 streamname, prodstep, datatype,
                 regexp_replace(version, '(_tid[0-9]{8}_[0-9]{2}|_sub[0-9]{10})$', '')) AS container,
       runnumber, project, streamname, prodstep, datatype, version, dspid, rgid,
       count_events, uniq_dupl_events, num_duplicates, ami_count, insert_end
FROM eventindex.datasets
WHERE state = 'LOADED';
