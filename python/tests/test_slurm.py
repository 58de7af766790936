"""The `slurm` policy from Python (docs/slurm.md): `slurm_config` builds what the CLI's
`--slurm-conf`, `--slurm-preset` and `--slurm-assoc` build, and `simulate(..., slurm=...)`
gives the CLI's bytes."""

import pytest

import gridscope
from conftest import KTH

CONF = b"""# weights as a site might set them; no PriorityFlags, so Fair Tree
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=500
PriorityCalcPeriod=1
PriorityDecayHalfLife=1-0
SchedulerParameters=bf_window=60,bf_interval=30
"""

SACCT = """JobID|JobName|Submit|Start|End|Elapsed|Timelimit|NCPUS|NNodes|State|Partition|User|Account
1|a|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:16:40|00:16:40|00:20:00|10|1|COMPLETED|main|alice|root
2|b|2026-01-01T00:01:40|2026-01-01T00:16:40|2026-01-01T00:18:20|00:01:40|00:02:00|2|1|COMPLETED|low|bob|root
"""

ASSOC = b"Cluster|Account|User|Share\nc|root||1\nc|root|alice|2\nc|root|bob|1\nc|root|carol|1\nc|root|root|1\n"


def test_slurm_conf_matches_cli_byte_for_byte(cli, tmp_path):
    conf = tmp_path / "slurm.conf"
    conf.write_bytes(CONF)
    stdout = cli("simulate", KTH, "--policy", "slurm,easy", "--slurm-conf", conf, "--json")
    with pytest.warns(UserWarning) as seen:
        cfg = gridscope.slurm_config(conf)
    notes = [str(w.message) for w in seen]
    assert any("Fair Tree" in n for n in notes), notes
    assert cfg["fair_tree"] is True and cfg["weight_fairshare"] == 10000
    assert cfg["bf_interval_s"] == 30
    assert cfg["bf_window_min"] == 60 and cfg["decay_half_life_s"] == 86400
    res = gridscope.simulate(str(KTH), policies=["slurm", "easy"], slurm=cfg)
    assert res.to_json() + "\n" == stdout


def test_slurm_preset_by_name_matches_cli(cli):
    stdout = cli("simulate", KTH, "--policy", "slurm", "--slurm-preset", "medium_cluster", "--json")
    res = gridscope.simulate(str(KTH), policies=["slurm"], slurm="medium_cluster")
    assert res.to_json() + "\n" == stdout
    with pytest.raises(gridscope.GridscopeError, match="medium_cluster"):
        gridscope.slurm_config(preset="big")
    with pytest.raises(gridscope.ScenarioError, match="not among the policies"):
        gridscope.simulate(str(KTH), policies=["easy"], slurm="medium_cluster")


def test_association_dump_meets_a_sacct_log(tmp_path):
    log = tmp_path / "log.sacct"
    log.write_text(SACCT)
    w = gridscope.read_trace(str(log))
    with pytest.warns(UserWarning) as seen:
        cfg = gridscope.slurm_config(CONF, assoc=ASSOC, workload=w)
    assert any("Fair Tree" in str(n.message) for n in seen)
    # alice and bob (numbered 0 and 1 by the log) keep the dump's shares; carol and the
    # root user run nothing here: their shares and their two associations stay beside them.
    assert cfg["shares"] == [{"user": 0, "shares": 2}, {"user": 1, "shares": 1}]
    assert cfg["other_shares"] == 2 and cfg["other_users"] == 2
    run = gridscope.simulate(w, policies=["slurm"], slurm=cfg)["slurm"]
    assert run.metrics["avg_wait_s"] >= 0
    with pytest.raises(gridscope.GridscopeError, match="workload"):
        gridscope.slurm_config(CONF, assoc=ASSOC)
    with pytest.raises(gridscope.GridscopeError, match="line 2"):
        gridscope.slurm_config(assoc=b"Cluster|Account|User|Share\nc|root|a|many\n", workload=w)


QOS_SACCT = """JobID|Submit|Start|End|Timelimit|NCPUS|State|User|QOS
1|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:40|00:02:00|2|COMPLETED|alice|normal
2|2026-01-01T00:00:05|2026-01-01T00:00:05|2026-01-01T00:01:40|00:02:00|2|COMPLETED|alice|normal
3|2026-01-01T00:00:06|2026-01-01T00:00:06|2026-01-01T00:01:40|00:02:00|4|COMPLETED|bob|tiny
"""

QOS = b"Name|Priority|MaxJobsPU|GrpTRES\nnormal|0|1|\ntiny|10||cpu=2\n"


def test_qos_dump_meets_a_sacct_log(cli, tmp_path):
    log = tmp_path / "log.sacct"
    log.write_text(QOS_SACCT)
    dump = tmp_path / "qos.txt"
    dump.write_bytes(QOS)
    w = gridscope.read_trace(str(log))
    cfg = gridscope.slurm_config(qos=dump, workload=w)
    assert cfg["qos"] == [
        {"name": "normal", "priority": 0, "max_jobs_per_user": 1},
        {"name": "tiny", "priority": 10, "grp_cpus": 2},
    ]
    res = gridscope.simulate(w, policies=["slurm"], slurm=cfg)
    run = res["slurm"]
    # alice's second job waits for her first (MaxJobsPU=1); bob's 4 CPUs exceed tiny's 2.
    assert run.metrics["jobs_rejected"] == 1
    stdout = cli("simulate", log, "--policy", "slurm", "--slurm-qos", dump, "--json")
    assert res.to_json() + "\n" == stdout
