-- A small flux-accounting database (schema v38, flux-accounting 0.60) for
-- `fairsort order --example flux`; `sqlite3 accounting.db < accounting.sql` makes the file.
-- Only the tables and columns mf_priority and the fair-share walk read are filled in; the
-- column definitions and defaults are those of `flux account create-db`.
-- fairshare values are what `flux account-update-fshare` writes for these shares and usages
-- (6 decimals): `fairsort share --tree accounting.db` recomputes them.
PRAGMA user_version = 38;

CREATE TABLE association_table (
    creation_time    bigint(20)                     NOT NULL,
    mod_time         bigint(20)  DEFAULT 0          NOT NULL,
    active           int(11)     DEFAULT 1          NOT NULL,
    username         tinytext                       NOT NULL,
    userid           int(11)     DEFAULT 65534      NOT NULL,
    bank             tinytext                       NOT NULL,
    default_bank     tinytext                       NOT NULL,
    shares           int(11)     DEFAULT 1          NOT NULL,
    job_usage        real        DEFAULT 0.0        NOT NULL,
    fairshare        real        DEFAULT 0.5        NOT NULL,
    max_running_jobs int(11)     DEFAULT 5          NOT NULL,
    max_active_jobs  int(11)     DEFAULT 7          NOT NULL,
    max_nodes        int(11)     DEFAULT 2147483647 NOT NULL,
    max_cores        int(11)     DEFAULT 2147483647 NOT NULL,
    queues           tinytext    DEFAULT ''         NOT NULL,
    projects         tinytext    DEFAULT '*'        NOT NULL,
    default_project  tinytext    DEFAULT '*'        NOT NULL,
    max_sched_jobs   int(11)     DEFAULT 2147483647 NOT NULL,
    PRIMARY KEY (username, bank)
);

CREATE TABLE bank_table (
    bank_id           integer    PRIMARY KEY AUTOINCREMENT,
    bank              text                   NOT NULL,
    active            int(11)    DEFAULT 1   NOT NULL,
    parent_bank       text       DEFAULT '',
    shares            int                    NOT NULL,
    job_usage         real       DEFAULT 0.0 NOT NULL,
    priority          real       DEFAULT 0.0 NOT NULL,
    ignore_older_than bigint(20) DEFAULT 0
);

CREATE TABLE queue_table (
    queue                     tinytext                      NOT NULL,
    min_nodes_per_job         int(11)  DEFAULT 1            NOT NULL,
    max_nodes_per_job         int(11)  DEFAULT 1            NOT NULL,
    max_time_per_job          int(11)  DEFAULT 60           NOT NULL,
    priority                  int(11)  DEFAULT 0            NOT NULL,
    max_running_jobs          int(11)  DEFAULT 100          NOT NULL,
    max_nodes_per_assoc       int(11)  DEFAULT 2147483647   NOT NULL,
    max_sched_jobs            int(11)  DEFAULT 2147483647   NOT NULL,
    max_sched_nodes_per_assoc int(11)  DEFAULT 2147483647   NOT NULL,
    max_sched_cores_per_assoc int(11)  DEFAULT 2147483647   NOT NULL,
    max_nodes                 int(11)  DEFAULT 2147483647   NOT NULL,
    max_cores                 int(11)  DEFAULT 2147483647   NOT NULL,
    PRIMARY KEY (queue)
);

CREATE TABLE priority_factor_weight_table (
    factor text    PRIMARY KEY NOT NULL,
    weight integer             NOT NULL
);

CREATE TABLE config_table (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT             NOT NULL
);

-- Banks: physics is favoured (bank priority 100), biology slightly disfavoured (-5).
INSERT INTO bank_table (bank, parent_bank, shares, priority) VALUES
    ('root',      '',     1,   0.0),
    ('physics',   'root', 50,  100.0),
    ('chemistry', 'root', 30,  0.0),
    ('biology',   'root', 20,  -5.0);

-- Queues: batch is neutral, debug jumps ahead, standby falls behind.
INSERT INTO queue_table (queue, max_nodes_per_job, max_time_per_job, priority) VALUES
    ('batch',   64, 1440, 0),
    ('debug',   2,  60,   10),
    ('standby', 64, 720,  -5);

-- create-db's default weights, with the bank factor switched on (edit-factor --factor=bank --weight=10).
INSERT INTO priority_factor_weight_table VALUES
    ('fairshare', 100000), ('queue', 10000), ('bank', 10), ('urgency', 1000);

INSERT INTO config_table VALUES
    ('priority_usage_reset_period', '2419200'), ('priority_decay_half_life', '604800'),
    ('decay_factor', '0.5'), ('node_weight', '1.0'), ('core_weight', '0.0'),
    ('gpu_weight', '0.0'), ('deny_unknown_queues', 'false');

INSERT INTO association_table
    (creation_time, username, userid, bank, default_bank, shares, job_usage, fairshare, queues, active)
VALUES
    (1763000000, 'alice', 5001, 'physics',   'physics',   10, 1200.0, 0.333333, 'batch,debug',         1),
    (1763000000, 'bob',   5002, 'physics',   'physics',   10, 5400.0, 0.166667, 'batch',               1),
    (1763000000, 'dave',  5004, 'physics',   'chemistry', 5,  300.0,  0.5,      'batch,debug',         1),
    (1763000000, 'carol', 5003, 'chemistry', 'chemistry', 10, 150.0,  0.833333, 'batch,standby',       1),
    (1763000000, 'dave',  5004, 'chemistry', 'chemistry', 10, 2600.0, 0.666667, 'batch,debug,standby', 1),
    (1763000000, 'erin',  5005, 'biology',   'biology',   10, 800.0,  1.0,      'batch,debug,standby', 1),
    (1763000000, 'frank', 5006, 'biology',   'biology',   10, 0.0,    0.5,      'batch',               0);
