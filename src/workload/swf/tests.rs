//! The SWF reader's unit tests.

use super::*;

/// The general reading of a job line's fields: tokens split at bytes up to ' ', each
/// through `parse_milli`; `None` unless there are 18 and all parse.
fn general_fields(line: &[u8]) -> Option<[i64; FIELDS]> {
    let toks: Vec<&[u8]> = line
        .split(|&b| b <= b' ')
        .filter(|t| !t.is_empty())
        .collect();
    if toks.len() != FIELDS {
        return None;
    }
    let mut f = [0i64; FIELDS];
    for (v, t) in f.iter_mut().zip(toks) {
        *v = parse_milli(t)?;
    }
    Some(f)
}

/// The one-pass reader of whole-number lines never disagrees with the general reading:
/// on random lines of digits, signs, points, exponents, other bytes and separators,
/// whatever it accepts the general reading gives the same, and it accepts every line
/// of 18 whole numbers of up to 12 digits.
#[test]
fn whole_number_lines_read_as_the_general_path_reads_them() {
    let mut rng = crate::rng::SimRng::new(3);
    let pieces: [&[u8]; 14] = [
        b"0",
        b"7",
        b"-1",
        b"123456789012",
        b"1234567890123",
        b"-",
        b"+5",
        b"2.5",
        b"1e3",
        b"x",
        b"\xc3\xa9",
        b"00042",
        b"999999999999",
        b"-999999999999",
    ];
    let seps: [&[u8]; 4] = [b" ", b"   ", b"\t", b" \x0b "];
    let (mut accepted, mut plain) = (0, 0);
    for case in 0..20_000 {
        let fields = if case % 2 == 0 {
            FIELDS
        } else {
            rng.range_u64(0, 20) as usize
        };
        let whole_only = case % 4 == 0;
        let mut line = Vec::new();
        if rng.range_u64(0, 1) == 1 {
            line.extend_from_slice(seps[rng.range_u64(0, 3) as usize]);
        }
        for i in 0..fields {
            if i > 0 {
                line.extend_from_slice(seps[rng.range_u64(0, 3) as usize]);
            }
            // Mostly whole numbers, with one piece in ten of any kind unless whole_only.
            let k = if whole_only || rng.range_u64(0, 9) > 0 {
                [0, 1, 2, 3, 11, 12, 13][rng.range_u64(0, 6) as usize]
            } else {
                rng.range_u64(0, 13) as usize
            };
            line.extend_from_slice(pieces[k]);
        }
        let fast = whole_number_fields(&line);
        if whole_only && fields == FIELDS {
            plain += 1;
            assert!(fast.is_some(), "{:?}", String::from_utf8_lossy(&line));
        }
        if let Some(f) = fast {
            accepted += 1;
            assert_eq!(
                Some(f),
                general_fields(&line),
                "{:?}",
                String::from_utf8_lossy(&line)
            );
        }
    }
    assert!(
        plain > 4_000 && accepted >= plain,
        "{plain} plain, {accepted} accepted"
    );
}

#[test]
fn milli_parsing() {
    assert_eq!(parse_milli(b"12"), Some(12_000));
    assert_eq!(parse_milli(b"-1"), Some(-1_000));
    assert_eq!(parse_milli(b"3600.25"), Some(3_600_250));
    assert_eq!(parse_milli(b"0.0005"), Some(1));
    assert_eq!(parse_milli(b"1e3"), Some(1_000_000));
    assert_eq!(parse_milli(b"12a"), None);
    assert_eq!(parse_milli(b"-"), None);
    // Beyond ±10¹² (seconds) a field is out of range, however it is written.
    assert_eq!(parse_milli(b"1000000000000"), Some(MAX_FIELD * 1000));
    assert_eq!(parse_milli(b"1000000000001"), None);
    assert_eq!(parse_milli(b"8999999999999999"), None);
    assert_eq!(parse_milli(b"-2e12"), None);
    let w = read_swf(
        "big.swf",
        b"1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n2 5 0 2e12 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n",
        &SwfOptions::default(),
    )
    .unwrap();
    assert_eq!(w.jobs.len(), 1);
    assert!(w
        .report
        .summary()
        .contains("big.swf:2: field 4 is '2e12', out of range"));
    assert_eq!(parse_milli(b"99999999999999999999"), None);
}

#[test]
fn header_values_that_do_not_parse_are_reported_and_a_bom_is_skipped() {
    let text =
        "\u{feff}; MaxProcs: 64\n; MaxNodes: lots\n; UnixStartTime: yesterday\n; MaxJobs: -5\n\
                -3 0 0 10 100000000000 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n";
    let w = read_swf("h.swf", text.as_bytes(), &SwfOptions::default()).unwrap();
    // The BOM did not swallow the first header line.
    assert_eq!(w.report.header.max_procs, Some(64));
    assert_eq!(w.report.header.max_nodes, None);
    let warnings = w.report.warnings.join("\n");
    for expected in [
        "header MaxNodes: 'lots' is not a positive whole number; ignored",
        "header UnixStartTime: 'yesterday' is not a whole number",
        "header MaxJobs: '-5' is not a positive whole number",
        "1 jobs ask for more than 4,294,967,295 processors",
        "1 jobs have a negative job number",
    ] {
        assert!(warnings.contains(expected), "{expected}\n{warnings}");
    }
    // A start time near ±2⁶³ would wrap the clock: ignored, with a warning.
    let w = read_swf(
        "u.swf",
        b"; UnixStartTime: 9223372036854775000\n",
        &SwfOptions::default(),
    )
    .unwrap();
    assert_eq!(w.report.header.unix_start_time, None);
    assert!(w
        .report
        .warnings
        .iter()
        .any(|x| x.contains("UnixStartTime")));
}

#[test]
fn an_endless_line_in_gzip_is_counted_not_buffered() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let job = b"1 0 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n";
    gz.write_all(job).unwrap();
    // 3 MiB of one line, then a good line, then 2 MiB more without an end.
    gz.write_all(&vec![b'7'; 3 << 20]).unwrap();
    gz.write_all(b"\n").unwrap();
    gz.write_all(job).unwrap();
    gz.write_all(&vec![b'7'; 2 << 20]).unwrap();
    let bytes = gz.finish().unwrap();
    let w = read_swf("long.swf.gz", &bytes, &SwfOptions::default()).unwrap();
    assert_eq!(w.jobs.len(), 2);
    assert_eq!(w.report.malformed, 2);
    assert!(w
        .report
        .summary()
        .contains("line longer than 1048576 bytes"));
    let e = read_swf(
        "long.swf.gz",
        &bytes,
        &SwfOptions {
            strict: true,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("long.swf.gz:2: line longer than"),
        "{e}"
    );
}

#[test]
fn cleaning_notes_are_summed() {
    assert_eq!(
        jobs_removed("user=79 and (job>=47410 and job<=58079) (6539 jobs removed)"),
        6539
    );
    assert_eq!(jobs_removed("Note: nothing"), 0);
}
