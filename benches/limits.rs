//! How close the real traces run to each limit of `gridscope::limits`, and what an input at
//! the limit costs before it is refused: the time from the first byte to the error (or to the
//! result, for the sites limit) with inputs generated here. Numbers, not pass/fail — a timed
//! test would be flaky; `scripts/bench.sh` prints them.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use gridscope::engine::RunConfig;
use gridscope::limits::{group_thousands, Limit, Limits};
use gridscope::model::{Platform, Site};
use gridscope::policy::grid::{GridParams, GridScheme};
use gridscope::policy::local::LocalPolicyKind;
use gridscope::workload::{read_swf, SwfOptions};

const JOB: &[u8] = b"1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n";

fn gzip_of(piece: &[u8], times: usize) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let block = piece.repeat(4096);
    for _ in 0..times / 4096 {
        e.write_all(&block).unwrap();
    }
    e.finish().unwrap()
}

fn largest_real() -> (u64, u64, u64, u64) {
    // (file bytes, inflated bytes, longest line, job records) over the shared traces.
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    let (mut file, mut inflated, mut line, mut jobs) = (0, 0, 0, 0);
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    for p in entries
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".gz"))
    {
        let bytes = std::fs::read(p).unwrap();
        file = file.max(bytes.len() as u64);
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let w = read_swf(&name, &bytes, &SwfOptions::default()).unwrap();
        inflated = inflated.max(w.report.bytes);
        jobs = jobs.max(w.report.records);
        let mut text = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::MultiGzDecoder::new(&bytes[..]),
            &mut text,
        )
        .unwrap();
        line = line.max(
            text.split(|b| *b == b'\n')
                .map(|l| l.len() as u64)
                .max()
                .unwrap_or(0),
        );
    }
    (file, inflated, line, jobs)
}

fn main() {
    let d = Limits::default();
    let (file, inflated, line, jobs) = largest_real();
    println!("# limits: default, the largest shared trace, and the headroom (default / largest)");
    for (limit, real) in [
        (Limit::FileBytes, file),
        (Limit::InflatedBytes, inflated),
        (Limit::LineBytes, line),
        (Limit::Jobs, jobs),
        (Limit::Sites, 6),
    ] {
        println!(
            "{:<22} {:>15} {:>12} {:>8.0}×",
            limit.flag(),
            group_thousands(d.get(limit)),
            group_thousands(real),
            d.get(limit) as f64 / real.max(1) as f64
        );
    }

    println!("\n# the cost of an input at the limit, before its error");
    // A gzip bomb of job lines: the job limit stops it.
    let bomb = gzip_of(JOB, d.jobs as usize + 4096);
    let t = Instant::now();
    let e = read_swf("bomb.gz", &bomb, &SwfOptions::default()).unwrap_err();
    println!(
        "job limit: {:.1} MB of gzip, {} lines → refused after {:.2} s ({})",
        bomb.len() as f64 / 1e6,
        group_thousands(d.jobs + 4096),
        t.elapsed().as_secs_f64(),
        e.to_string().split(" —").next().unwrap_or("")
    );
    drop(bomb);
    // Blank lines: only the inflated-size limit stops them.
    let blank = vec![b'\n'; 1 << 20];
    let bomb = gzip_of(&blank[..1024], ((d.inflated_bytes >> 10) + 4096) as usize);
    let t = Instant::now();
    let e = read_swf("blank.gz", &bomb, &SwfOptions::default()).unwrap_err();
    println!(
        "inflated-size limit: {:.1} MB of gzip → refused after {:.2} s ({})",
        bomb.len() as f64 / 1e6,
        t.elapsed().as_secs_f64(),
        e.to_string().split(" —").next().unwrap_or("")
    );
    drop(bomb);
    // One endless line: counted as malformed, never buffered.
    let endless = gzip_of(&[b'7'; 1024], 1 << 20);
    let t = Instant::now();
    let w = read_swf("line.gz", &endless, &SwfOptions::default()).unwrap();
    println!(
        "line limit: a 1 GiB line in {:.1} MB of gzip → {} malformed line after {:.2} s",
        endless.len() as f64 / 1e6,
        w.report.malformed,
        t.elapsed().as_secs_f64()
    );
    // The site limit: 4,096 sites, 20,000 jobs, sender-initiated (every arrival asks every
    // site for its wait).
    let sites: Vec<Site> = (0..d.sites)
        .map(|i| Site::flat(format!("s{i}"), 16))
        .collect();
    let platform = Platform {
        name: "wide".into(),
        sites,
    };
    let mut jobs = Vec::new();
    let mut rng = gridscope::rng::SimRng::new(1);
    let text: String = (0..20_000)
        .map(|i| {
            let p = rng.range_u64(1, 16);
            let r = rng.range_u64(10, 5000);
            format!(
                "{} {} 0 {r} {p} -1 -1 {p} {r} -1 1 1 1 -1 -1 -1 -1 -1\n",
                i + 1,
                i * 2
            )
        })
        .collect();
    jobs.extend(
        read_swf("w", text.as_bytes(), &SwfOptions::default())
            .unwrap()
            .jobs,
    );
    for (i, j) in jobs.iter_mut().enumerate() {
        j.home = (i as u64 % d.sites) as u32;
    }
    for scheme in [GridScheme::Local, GridScheme::Sender, GridScheme::Central] {
        let t = Instant::now();
        gridscope::engine::simulate_grid(
            &platform,
            &jobs,
            LocalPolicyKind::Easy,
            scheme,
            &GridParams::default(),
            &RunConfig::default(),
            &mut |_, _| true,
        )
        .unwrap();
        println!(
            "site limit: {} sites × 20,000 jobs, {:<7} {:.2} s",
            d.sites,
            scheme.name(),
            t.elapsed().as_secs_f64()
        );
    }
}
