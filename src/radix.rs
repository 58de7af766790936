//! A stable LSD radix sort by a `u64` key, for the long lists of changes the invariant
//! checks and the energy accounting put in time order (millions on a year of a thousand
//! nodes, where a comparison sort was a large part of a run).

/// The widest digit a pass sorts by: 4,096 buckets (8,192 was slower: too many places
/// written to at once).
const WIDEST: u32 = 12;

/// How many passes [`sort_by_key`] makes for keys up to `largest`.
pub fn passes(largest: u64) -> u32 {
    (64 - largest.leading_zeros()).div_ceil(WIDEST)
}

/// Sorts `items` by `key`, stably (equal keys keep their order): as few passes as digits
/// of at most 12 bits cover the bits the largest key uses, each digit as wide as the
/// others, all the passes' counts taken in one read. Linear in the items per pass, so it
/// beats a comparison sort on long lists of keys of few bits (subtract the least first).
pub fn sort_by_key<T: Copy>(items: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    let largest = items.iter().map(&key).max().unwrap_or(0);
    let bits = 64 - largest.leading_zeros();
    let rounds = passes(largest);
    if rounds == 0 {
        return;
    }
    let digit = bits.div_ceil(rounds);
    let mask = (1u64 << digit) - 1;
    let buckets = 1usize << digit;
    let mut counts = vec![0usize; buckets * rounds as usize];
    for item in items.iter() {
        let k = key(item);
        for round in 0..rounds {
            counts[round as usize * buckets + (k >> (round * digit) & mask) as usize] += 1;
        }
    }
    let mut spare = items.clone();
    for round in 0..rounds {
        let next = &mut counts[round as usize * buckets..(round as usize + 1) * buckets];
        let mut sum = 0;
        for c in next.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        let shift = round * digit;
        for &item in items.iter() {
            let d = (key(&item) >> shift & mask) as usize;
            spare[next[d]] = item;
            next[d] += 1;
        }
        std::mem::swap(items, &mut spare);
    }
}

/// Sorts `items` stably by (instant, flag) — the flag's false before true — with
/// [`sort_by_key`], and returns true; or sorts nothing and returns false when a comparison
/// sort is the better choice (fewer than 65,536 items) or the instants span 2^62 ms or more.
/// Lists of a run's starts and ends pushed job by job are in (instant, start or end, job)
/// order after it, as a sort of the whole tuple would put them (the invariant and resource
/// sweeps: a million on RICC's two years, a twentieth of a run in `sort_unstable`).
pub fn sort_by_instant_and_flag<T: Copy>(
    items: &mut Vec<T>,
    instant: impl Fn(&T) -> i64,
    flag: impl Fn(&T) -> bool,
) -> bool {
    if items.len() < 1 << 16 {
        return false;
    }
    let first = items.iter().map(&instant).min().unwrap_or(0);
    let span = items
        .iter()
        .map(|x| instant(x).abs_diff(first))
        .max()
        .unwrap_or(0);
    if span >= 1 << 62 {
        return false;
    }
    sort_by_key(items, |x| {
        instant(x).abs_diff(first) << 1 | u64::from(flag(x))
    });
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_like_the_standard_sort() {
        // A 64-bit LCG (Knuth's MMIX constants): keys of every width, with repeats.
        let mut state = 7u64;
        let mut draw = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state
        };
        for len in [0usize, 1, 2, 300, 5000, 70_000] {
            let items: Vec<(u64, u32)> = (0..len as u32)
                .map(|i| (draw() >> (draw() % 64), i))
                .collect();
            let (mut a, mut b) = (items.clone(), items.clone());
            sort_by_key(&mut a, |x| x.0);
            b.sort_by_key(|x| x.0);
            assert_eq!(a, b, "{len} items");
            let mut few: Vec<(u64, u32)> = items.iter().map(|x| (x.0 % 5, x.1)).collect();
            let mut want = few.clone();
            sort_by_key(&mut few, |x| x.0);
            want.sort_by_key(|x| x.0);
            assert_eq!(few, want);
            // (instant, flag, index) triples pushed in index order: the stable sort by
            // instant and flag is the whole tuple's sort.
            let mut triples: Vec<(i64, u8, u32)> = items
                .iter()
                .map(|x| ((x.0 >> 40) as i64 - (1 << 22), (x.0 & 1) as u8, x.1))
                .collect();
            let mut want = triples.clone();
            want.sort_unstable();
            let many = triples.len() >= 1 << 16;
            assert_eq!(
                sort_by_instant_and_flag(&mut triples, |t| t.0, |t| t.1 == 1),
                many
            );
            if many {
                assert_eq!(triples, want);
            }
        }
    }
}
