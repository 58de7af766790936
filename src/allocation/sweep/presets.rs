//! SF's five experiments as sweep specs (Figs. 3–5, 8 and §VI), with the paper's headline
//! numbers to print beside ours.

use super::spec::{table_three, Arrivals, SweepSpec, Vary};
use crate::allocation::{AllocationPolicy, Dispatch};

/// A named sweep: the paper's experiment and what it reported.
pub struct SweepPreset {
    pub name: &'static str,
    pub description: &'static str,
    /// The paper's headline numbers, to print beside the measured ones.
    pub paper: &'static str,
    pub spec: fn() -> SweepSpec,
}

use AllocationPolicy::{Dll, Hybrid, Owa, Ww};

fn ten_of_table_three(vary: Vary, x: Vec<f64>, arrivals: Arrivals, k: u32) -> SweepSpec {
    SweepSpec {
        vary,
        x,
        rates: table_three(),
        arrivals,
        batch_size: k,
        arrival_cv: 1.0,
        policies: vec![Ww, Owa, Dll],
        dispatch: Dispatch::Random,
        dll_report_s: 0.0,
    }
}

pub const SWEEP_PRESETS: &[SweepPreset] = &[
    SweepPreset {
        name: "sf-heterogeneity",
        description: "nine resources of speed 1 and one of speed h = 1..20; λ = 0.1 batches/s, k = 10 (SF §V-B, Fig. 3)",
        paper: "OWA 41 % better than WW at 20:1",
        spec: || {
            let mut rates = vec![1.0; 9];
            rates.push(20.0);
            SweepSpec {
                rates,
                ..ten_of_table_three(Vary::LastRate, (1..=20).map(f64::from).collect(), Arrivals::Lambda(0.1), 10)
            }
        },
    },
    SweepPreset {
        name: "sf-size",
        description: "n = 2..20 resources, half of speed 1 and half of speed 10; λ = 0.1, k = 10 (SF §V-C, Fig. 4)",
        paper: "OWA better than WW by 21 % at 6 resources, 35 % at 20",
        spec: || SweepSpec {
            rates: vec![1.0, 10.0],
            ..ten_of_table_three(Vary::Size, (1..=10).map(|h| f64::from(2 * h)).collect(), Arrivals::Lambda(0.1), 10)
        },
    },
    SweepPreset {
        name: "sf-batch",
        description: "SF Table III's ten resources (Σμ = 30); batch size k = 1..50; λ = 0.1 (SF §V-D, Fig. 5)",
        paper: "OWA better than WW by 62 % at k = 1, 20 % at 10, 1.5 % at 50",
        spec: || ten_of_table_three(
            Vary::BatchSize,
            vec![1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0],
            Arrivals::Lambda(0.1),
            10,
        ),
    },
    SweepPreset {
        name: "sf-cv",
        description: "Table III resources, k = 10, load λk/Σμ = 0.05; inter-arrival CV 1..3 (two-stage hyper-exponential) (SF §V-E, Fig. 8)",
        paper: "at CV 3, OWA 10 % better than WW and 15 % worse than DLL",
        spec: || ten_of_table_three(
            Vary::ArrivalCv,
            vec![1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0],
            Arrivals::Load(0.05),
            10,
        ),
    },
    SweepPreset {
        name: "sf-hybrid",
        description: "Table III resources, k = 20, load 0.3; halfway through, the speed-10 resource drops to the x-axis value; static OWA (from the initial rates) vs the hybrid scheduler (SF §VI, Figs. 10–12)",
        paper: "hybrid 14.3 % better than static on average (real grid)",
        spec: || SweepSpec {
            policies: vec![Owa, Hybrid, Dll],
            ..ten_of_table_three(Vary::DegradedRate, vec![10.0, 5.0, 2.0, 1.0, 0.5], Arrivals::Load(0.3), 20)
        },
    },
];

pub fn sweep_preset(name: &str) -> Option<&'static SweepPreset> {
    SWEEP_PRESETS.iter().find(|p| p.name == name)
}
