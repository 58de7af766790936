//! A `slurm` run's configuration in the runs table (issue #42, docs/slurm.md
//! "Configuration"): a preset, the multifactor weights, the priority's times, the
//! backfill's knobs, and a pasted `slurm.conf` read as the CLI's `--slurm-conf` reads it
//! (the keys it does not model listed under it). Each field says what it weighs or bounds,
//! with Slurm's formula and where it comes from.

use std::rc::Rc;

use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use super::form::{input_value, on_value, select_value, DraftInput};
use crate::policy::slurm::{read_slurm_conf, SlurmConfig, SLURM_PRESETS};
use crate::scenario::{AlgorithmSpec, Scenario};
use crate::web::state::{edit, use_app, AppContext};

/// One number of the configuration: its slurm.conf name, its help, and how it is read and
/// written.
struct Knob {
    name: &'static str,
    help: &'static str,
    get: fn(&SlurmConfig) -> u64,
    set: fn(&mut SlurmConfig, u64) -> Result<(), String>,
}

fn to_u32(name: &str, v: u64) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("{name}: {v} is larger than 4294967295"))
}

/// The numbers a run of `slurm` reads, in slurm.conf's order.
const KNOBS: &[Knob] = &[
    Knob {
        name: "PriorityWeightAge",
        help: "Weight of the age factor, min(1, time queued / PriorityMaxAge) (Slurm's multifactor priority: priority = Σ weight × factor, truncated).",
        get: |c| c.weight_age.into(),
        set: |c, v| {
            c.weight_age = to_u32("PriorityWeightAge", v)?;
            Ok(())
        },
    },
    Knob {
        name: "PriorityWeightFairshare",
        help: "Weight of fair share: classic 2^(−U/S) (U the user's decayed usage over everyone's, S their shares over everyone's), or with Fair Tree the user's rank over the users.",
        get: |c| c.weight_fairshare.into(),
        set: |c, v| {
            c.weight_fairshare = to_u32("PriorityWeightFairshare", v)?;
            Ok(())
        },
    },
    Knob {
        name: "PriorityWeightJobSize",
        help: "Weight of job size: the job's processors over the site's (1 − that with PriorityFavorSmall).",
        get: |c| c.weight_job_size.into(),
        set: |c, v| {
            c.weight_job_size = to_u32("PriorityWeightJobSize", v)?;
            Ok(())
        },
    },
    Knob {
        name: "PriorityWeightPartition",
        help: "Weight of the partition factor: the partition's PriorityJobFactor over the largest (partitions come from a pasted slurm.conf; SWF field 16 or sacct's Partition).",
        get: |c| c.weight_partition.into(),
        set: |c, v| {
            c.weight_partition = to_u32("PriorityWeightPartition", v)?;
            Ok(())
        },
    },
    Knob {
        name: "PriorityWeightQOS",
        help: "Weight of the QOS factor: the job's QOS's Priority over the highest QOS Priority (0 for a job under no QOS). QOS come from a pasted sacctmgr QOS dump; a job runs under the QOS its record names (sacct's QOS, SWF's queue, field 15), else normal.",
        get: |c| c.weight_qos.into(),
        set: |c, v| {
            c.weight_qos = to_u32("PriorityWeightQOS", v)?;
            Ok(())
        },
    },
    Knob {
        name: "TRES CPU",
        help: "PriorityWeightTRES=CPU: weight of the job's share of the site's CPUs (its processors over the site's; Slurm's TRES factor, requested over the partition's).",
        get: |c| c.weight_tres.cpu.into(),
        set: |c, v| {
            c.weight_tres.cpu = to_u32("TRES CPU", v)?;
            Ok(())
        },
    },
    Knob {
        name: "TRES Mem",
        help: "PriorityWeightTRES=Mem: weight of the job's share of the site's memory (on sites with node types; 0 elsewhere).",
        get: |c| c.weight_tres.mem.into(),
        set: |c, v| {
            c.weight_tres.mem = to_u32("TRES Mem", v)?;
            Ok(())
        },
    },
    Knob {
        name: "TRES GPU",
        help: "PriorityWeightTRES=GRES/gpu: weight of the job's share of the site's GPUs (on sites with node types; 0 elsewhere).",
        get: |c| c.weight_tres.gpu.into(),
        set: |c, v| {
            c.weight_tres.gpu = to_u32("TRES GPU", v)?;
            Ok(())
        },
    },
    Knob {
        name: "PriorityMaxAge (s)",
        help: "The wait at which the age factor reaches 1 (Slurm's default 7 days).",
        get: |c| c.max_age_s,
        set: |c, v| {
            c.max_age_s = v;
            Ok(())
        },
    },
    Knob {
        name: "PriorityDecayHalfLife (s)",
        help: "Fair-share usage halves over this time (0: never decays; Slurm's default 7 days).",
        get: |c| c.decay_half_life_s,
        set: |c, v| {
            c.decay_half_life_s = v;
            Ok(())
        },
    },
    Knob {
        name: "PriorityCalcPeriod (s)",
        help: "Priorities and usage are recomputed at multiples of this (Slurm's default 5 minutes).",
        get: |c| c.calc_period_s,
        set: |c, v| {
            c.calc_period_s = v;
            Ok(())
        },
    },
    Knob {
        name: "bf_window (min)",
        help: "The backfill plans this far ahead: a job that cannot start before now + bf_window gets no reservation (Slurm's default 1440).",
        get: |c| c.bf_window_min,
        set: |c, v| {
            c.bf_window_min = v;
            Ok(())
        },
    },
    Knob {
        name: "bf_max_job_test",
        help: "Jobs a backfill pass examines, in priority order (Slurm's default 500).",
        get: |c| c.bf_max_job_test.into(),
        set: |c, v| {
            c.bf_max_job_test = to_u32("bf_max_job_test", v)?;
            Ok(())
        },
    },
    Knob {
        name: "bf_resolution (s)",
        help: "Planned run times are rounded up to this (Slurm's default 60).",
        get: |c| c.bf_resolution_s,
        set: |c, v| {
            c.bf_resolution_s = v;
            Ok(())
        },
    },
    Knob {
        name: "bf_interval (s)",
        help: "The backfill runs at the passes on multiples of this (0: at every pass; Slurm's default 30).",
        get: |c| c.bf_interval_s,
        set: |c, v| {
            c.bf_interval_s = v;
            Ok(())
        },
    },
    Knob {
        name: "bf_max_job_user",
        help: "Jobs of one user a backfill pass examines; past it they are skipped, not counted (0: no limit).",
        get: |c| c.bf_max_job_user.into(),
        set: |c, v| {
            c.bf_max_job_user = to_u32("bf_max_job_user", v)?;
            Ok(())
        },
    },
    Knob {
        name: "bf_min_age_reserve (s)",
        help: "A job queued for less gets no reservation, though it may still start at once (0: every job may reserve).",
        get: |c| c.bf_min_age_reserve_s,
        set: |c, v| {
            c.bf_min_age_reserve_s = v;
            Ok(())
        },
    },
    Knob {
        name: "node CPUs",
        help: "Slurm's backfill reserves whole nodes: a reservation keeps every job off its nodes for its window, however few of their CPUs it uses (backfill.c, _add_reservation). On a site of processors a node is this many: a reservation of u holds ⌈u / N⌉·N. On node-typed sites any N above 0 holds the placed nodes whole. 0: a reservation holds its own processors only. A pasted slurm.conf whose NodeName lines all say CPUs=N sets it (docs/slurm.md, Scheduling).",
        get: |c| c.bf_node_cpus.into(),
        set: |c, v| {
            c.bf_node_cpus = to_u32("node CPUs", v)?;
            Ok(())
        },
    },
];

/// Changes run `i`'s Slurm configuration by `f`, keeping it one a run can use.
fn slurm_edit(
    s: &mut Scenario,
    i: usize,
    f: impl FnOnce(&mut SlurmConfig) -> Result<(), String>,
) -> Result<(), String> {
    let a = s
        .algorithms
        .get_mut(i)
        .ok_or("that algorithm row is gone")?;
    let mut c = a.slurm.clone().unwrap_or_default();
    f(&mut c)?;
    c.check()?;
    a.slurm = Some(c);
    Ok(())
}

/// A knob's name in test ids: before its unit, spaces as dashes (`TRES-CPU`, `bf_window`).
fn testid(name: &str) -> String {
    let bare = name.split(" (").next().unwrap_or(name);
    bare.replace(' ', "-")
}

fn knob(app: &AppContext, i: usize, k: &'static Knob, cfg: &SlurmConfig) -> Html {
    let apply = Rc::new(move |s: &mut Scenario, v: &str| {
        let n: u64 = v
            .trim()
            .parse()
            .map_err(|_| format!("{}: '{v}' is not a whole number ≥ 0", k.name))?;
        slurm_edit(s, i, |c| (k.set)(c, n))
    });
    let onchange = on_value(app, apply, input_value);
    html! {
        <label class="param" title={k.help}>{k.name}
            <DraftInput kind="number" step="1" min="0" label={format!("{} of run {}", k.name, i + 1)}
                testid={format!("slurm-{i}-{}", testid(k.name))}
                value={(k.get)(cfg).to_string()} {onchange} />
        </label>
    }
}

fn flag(
    app: &AppContext,
    i: usize,
    on: bool,
    name: &'static str,
    help: &'static str,
    flip: fn(&mut SlurmConfig),
) -> Html {
    let onchange = on_value(
        app,
        Rc::new(move |s: &mut Scenario, _: &str| {
            slurm_edit(s, i, |c| {
                flip(c);
                Ok(())
            })
        }),
        |_: &Event| String::new(),
    );
    html! {
        <label class="check" title={help}>
            <input type="checkbox" checked={on} aria-label={format!("{name}, run {}", i + 1)} data-testid={format!("slurm-{i}-{name}")} {onchange} />
            {format!(" {name}")}
        </label>
    }
}

/// Run `i`'s Slurm configuration: a preset, every number, two flags and a slurm.conf.
pub fn slurm_params(app: &AppContext, i: usize, a: &AlgorithmSpec) -> Html {
    let cfg = a.slurm.clone().unwrap_or_default();
    let preset = on_value(
        app,
        Rc::new(move |s: &mut Scenario, v: &str| {
            let c = SlurmConfig::preset(v).ok_or_else(|| format!("unknown Slurm preset '{v}'"))?;
            slurm_edit(s, i, |cfg| {
                *cfg = c;
                Ok(())
            })
        }),
        select_value,
    );
    html! { <div class="knobs">
        <label class="param" title="Replaces this run's configuration: Slurm's documented defaults (every weight 0: submission order, Slurm's backfill), or the medium_cluster tutorial configuration of slurm_sim_tools (fair share 120000, age 70000, job size 200000, QOS 50000, partition 1000000; half-life 30 days; max age 7 days).">{"preset"}
            <select aria-label={format!("Slurm preset of run {}", i + 1)} data-testid={format!("slurm-{i}-preset")} onchange={preset}>
                <option value="" selected=true disabled=true>{"load…"}</option>
                { for SLURM_PRESETS.iter().map(|p| html!{ <option value={*p}>{*p}</option> }) }
            </select>
        </label>
        { for KNOBS.iter().map(|k| knob(app, i, k, &cfg)) }
        { flag(app, i, cfg.favor_small, "PriorityFavorSmall", "Job size favours small jobs: the factor is 1 − processors / site processors.", |c| c.favor_small = !c.favor_small) }
        { flag(app, i, cfg.fair_tree, "FairTree", "Fair share by Fair Tree (Slurm's default since 19.05): users ranked by shares over usage, the factor rank / users. Off: classic 2^(−U/S).", |c| c.fair_tree = !c.fair_tree) }
        <SlurmConf run={i} kind={PasteKind::Conf} />
        <SlurmConf run={i} kind={PasteKind::Qos} />
        <SlurmConf run={i} kind={PasteKind::Assoc} />
        { qos_summary(i, &cfg) }
        { assoc_summary(i, &cfg) }
        <p class="help">{ super::with_doc_links("Slurm's own policy: the queue in multifactor priority order (partition tier first), the main scheduler while jobs fit, then Slurm's backfill with a reservation for every job it examines within bf_window. Partitions' PriorityJobFactor, PriorityTier, MaxTime and Nodes (node types of a site with node types) come from a pasted slurm.conf; QOS (Priority; MaxJobsPU and MaxTRESPU (cpu, mem, gres/gpu): running jobs, CPUs, memory and GPUs per user; GrpJobs and GrpTRES: the same of the whole QOS; a job a limit holds is passed over and blocks nothing; MaxWall: a longer time limit is rejected) from a pasted sacctmgr QOS dump. Nice is 0 here (docs/slurm.md).") }</p>
    </div> }
}

/// Whether a run carries an association dump (nothing without one).
fn assoc_summary(i: usize, cfg: &SlurmConfig) -> Html {
    if cfg.assoc_dump.is_empty() {
        return html! {};
    }
    let rows = cfg
        .assoc_dump
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    html! {
        <p class="help" data-testid={format!("slurm-{i}-assoc-summary")}>
            {format!("Association dump: {rows} lines, applied to the log's users at the run's start.")}
        </p>
    }
}

/// The QOS of a run's configuration, one line each (nothing without any).
fn qos_summary(i: usize, cfg: &SlurmConfig) -> Html {
    if cfg.qos.is_empty() {
        return html! {};
    }
    let line = |q: &crate::policy::slurm::QosDef| {
        let mut s = format!("{}: Priority {}", q.name, q.priority);
        if let Some(n) = q.max_jobs_per_user {
            s.push_str(&format!(", MaxJobsPU {n}"));
        }
        if let Some(c) = q.max_cpus_per_user {
            s.push_str(&format!(", MaxTRESPU cpu={c}"));
        }
        if let Some(n) = q.grp_jobs {
            s.push_str(&format!(", GrpJobs {n}"));
        }
        if let Some(c) = q.grp_cpus {
            s.push_str(&format!(", GrpTRES cpu={c}"));
        }
        let kb = |k: u64| format!("{}M", k >> 10);
        if let Some(m) = q.max_mem_kb_per_user {
            s.push_str(&format!(", MaxTRESPU mem={}", kb(m)));
        }
        if let Some(g) = q.max_gpus_per_user {
            s.push_str(&format!(", MaxTRESPU gres/gpu={g}"));
        }
        if let Some(m) = q.grp_mem_kb {
            s.push_str(&format!(", GrpTRES mem={}", kb(m)));
        }
        if let Some(g) = q.grp_gpus {
            s.push_str(&format!(", GrpTRES gres/gpu={g}"));
        }
        if let Some(w) = q.max_wall_s {
            s.push_str(&format!(", MaxWall {w} s"));
        }
        s
    };
    html! {
        <p class="help" data-testid={format!("slurm-{i}-qos-summary")}>
            {"QOS: "}{ cfg.qos.iter().map(line).collect::<Vec<_>>().join("; ") }
        </p>
    }
}

/// What a paste box reads.
#[derive(Clone, Copy, PartialEq)]
enum PasteKind {
    /// A `slurm.conf`.
    Conf,
    /// A QOS dump (`sacctmgr show qos -P`).
    Qos,
    /// An association dump (`sacctmgr show assoc -P`).
    Assoc,
}

#[derive(Properties, PartialEq)]
struct SlurmConfProps {
    run: usize,
    kind: PasteKind,
}

/// What a pasted text gives a run: a whole configuration (a `slurm.conf`), its QOS alone
/// (a QOS dump) or its association tree (an association dump, kept as text: it meets the
/// log's user names at the run's start).
#[derive(Clone)]
enum Pasted {
    Conf(SlurmConfig),
    Qos(Vec<crate::policy::slurm::QosDef>),
    Assoc(String),
}

/// Reads a pasted text; what it does not model, as notes.
fn read_pasted(kind: PasteKind, bytes: &[u8]) -> Result<(Vec<String>, Pasted), String> {
    match kind {
        PasteKind::Conf => read_slurm_conf(bytes)
            .map(|r| (r.messages(), Pasted::Conf(r.config)))
            .map_err(|e| e.to_string()),
        PasteKind::Qos => crate::policy::slurm::read_qos(bytes)
            .map(|d| (d.not_read, Pasted::Qos(d.defs)))
            .map_err(|e| e.to_string()),
        PasteKind::Assoc => crate::policy::slurm::read_assoc(bytes)
            .map(|t| {
                let mut notes = t.notes.clone();
                notes.push(format!(
                    "{} user associations under {} accounts: their users meet the log's at the run's start",
                    t.users.len() + t.repeats,
                    t.accounts.len() + 1
                ));
                let text = String::from_utf8_lossy(bytes).into_owned();
                (notes, Pasted::Assoc(text))
            })
            .map_err(|e| e.to_string()),
    }
}

/// A pasted `slurm.conf` (or QOS dump), read into run `run`'s configuration; what it does
/// not model is listed beside it, and a bad value names its line.
#[function_component]
fn SlurmConf(p: &SlurmConfProps) -> Html {
    let app = use_app();
    let text = use_node_ref();
    let said = use_state(Vec::<String>::new);
    let (run, kind) = (p.run, p.kind);
    let read = {
        let (text, said, app) = (text.clone(), said.clone(), app.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(area) = text.cast::<HtmlTextAreaElement>() else {
                return;
            };
            match read_pasted(kind, area.value().as_bytes()) {
                Ok((notes, pasted)) => {
                    said.set(notes);
                    app.send(edit(move |s| {
                        slurm_edit(s, run, |cfg| {
                            match &pasted {
                                Pasted::Qos(defs) => cfg.qos = defs.clone(),
                                Pasted::Assoc(text) => cfg.assoc_dump = text.clone(),
                                Pasted::Conf(c) => *cfg = c.clone(),
                            }
                            Ok(())
                        })
                    }));
                }
                Err(e) => said.set(vec![e]),
            }
        })
    };
    let (what, id, placeholder, help) = match kind {
        PasteKind::Conf => (
            "slurm.conf",
            "conf",
            "PriorityWeightAge=1000\nSchedulerParameters=bf_window=4320,bf_interval=30\nPartitionName=debug PriorityTier=2 MaxTime=30",
            " Replaces this run's configuration with the file's (Slurm's defaults where it says nothing), as gridscope simulate --slurm-conf does.",
        ),
        PasteKind::Qos => (
            "QOS dump",
            "qos",
            "Name|Priority|MaxJobsPU|GrpTRES\nnormal|0||\nhigh|100|4|cpu=64",
            " sacctmgr show qos format=Name,Priority,MaxJobsPU,MaxTRESPU,GrpJobs,GrpTRES,MaxWall -P: replaces this run's QOS, as gridscope simulate --slurm-qos does. A job runs under the QOS its record names (sacct's QOS column, SWF's queue), else normal if defined.",
        ),
        PasteKind::Assoc => (
            "association dump",
            "assoc",
            "Cluster|Account|User|Share|ParentName\nc|root||1|\nc|phys||2|root\nc|phys|alice|1|\nc|chem||1|root\nc|chem|bob|1|",
            " sacctmgr show assoc format=Cluster,Account,User,Fairshare,ParentName -P: the users' fair-share shares and, under Fair Tree, the accounts ranked level by level, as gridscope simulate --slurm-assoc does. Fair share charges each (account, user) association: a job runs under the account its record names (sacct's Account, SWF's group) when its user is there, else under its user's first account. Users are matched by name (sacct) or number (SWF); a user the dump lacks has 1 share under root.",
        ),
    };
    html! {
        <details class="slurm-conf">
            <summary>{format!("paste a {what}")}</summary>
            <textarea ref={text} rows="6" aria-label={format!("{what} of run {}", run + 1)} data-testid={format!("slurm-{run}-{id}")}
                placeholder={placeholder} />
            <button class="small" data-testid={format!("slurm-{run}-read{}", match kind { PasteKind::Conf => "", PasteKind::Qos => "-qos", PasteKind::Assoc => "-assoc" })} onclick={read}>{"read"}</button>
            <span class="help">{help}</span>
            <ul data-testid={format!("slurm-{run}-{id}-notes")}>
                { for said.iter().map(|m| html!{ <li>{m.clone()}</li> }) }
            </ul>
        </details>
    }
}
