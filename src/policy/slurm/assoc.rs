//! A Slurm association dump, as `sacctmgr show assoc format=Cluster,Account,User,Fairshare -P`
//! prints it (optionally with `ParentName`): the fair-share tree a site really has. Bytes in,
//! `Result` out; a bad row names its line and never panics.
//!
//! Classic fair share needs each user's **normalised shares** (Slurm's `NormShares`): the
//! product, down the tree from the root, of an association's raw shares over the raw shares
//! of it and its siblings (slurm.schedmd.com `priority_multifactor.html`, "Normalized
//! Shares"). [`AssocTree::apply`] turns that into the `shares` of a [`SlurmConfig`] for the
//! users of a workload — exactly when every user sits directly under `root` (the root user
//! and any accounts beside them become `other_shares`), else as the normalised shares scaled
//! to 2^30 (a relative error below 1e-9, and the notes say so).

use std::collections::BTreeMap;

use super::{AccountShares, DumpError, SlurmConfig, UserShares};

/// A row the association-dump reader cannot use ([`DumpError`] with its prefix).
pub type AssocError = DumpError;

const ASSOC_DUMP: &str = "association dump";

/// One user association: its account, raw shares and normalised shares.
#[derive(Clone, Debug, PartialEq)]
pub struct UserAssoc {
    pub user: String,
    pub account: String,
    pub raw_shares: u32,
    /// Slurm's `NormShares`: the share of the whole tree this association holds.
    pub norm_shares: f64,
}

/// The fair-share tree of one cluster, read from a dump.
#[derive(Clone, Debug, PartialEq)]
pub struct AssocTree {
    /// Every user association, in file order.
    pub users: Vec<UserAssoc>,
    /// Raw shares of everything directly under `root` (accounts and users, the root user
    /// among them).
    pub root_level_shares: u64,
    /// Things worth knowing (a user in several accounts: the first is used).
    pub notes: Vec<String>,
    /// User associations beyond each user's first (a user in two accounts is two).
    pub repeats: usize,
    /// Every account but `root`, in file order (sacctmgr prints the tree depth first), with
    /// its parent (`root` for the top level) and raw shares: Fair Tree walks them.
    pub accounts: Vec<(String, String, u32)>,
    /// Each user association beyond a user's first: its user, account and raw shares. The
    /// jobs that name that account run there; Fair Tree ranks it either way.
    pub extra_users: Vec<(String, String, u32)>,
}

const COLUMNS: [&str; 5] = ["cluster", "account", "user", "share", "parent"];

/// Reads a dump. A header line (`Cluster|Account|User|Share`, any order, `Par Name` or
/// `ParentName` optional) is looked for on the first line; without one the columns are
/// `Cluster|Account|User|Share` (as `-n` prints them).
pub fn read_assoc(bytes: &[u8]) -> Result<AssocTree, AssocError> {
    tree(parse(bytes)?)
}

/// The rows of a dump: accounts (name → parent, or `None` under root; raw shares; line)
/// and user associations (user, account, raw shares, line).
struct Rows {
    accounts: BTreeMap<String, (Option<String>, u32, usize)>,
    users: Vec<(String, String, u32, usize)>,
}

fn parse(bytes: &[u8]) -> Result<Rows, AssocError> {
    let text = String::from_utf8_lossy(bytes);
    let mut cols: [Option<usize>; 5] = [Some(0), Some(1), Some(2), Some(3), None];
    // (account, parent account or None for root's children, raw shares)
    let mut accounts: BTreeMap<String, (Option<String>, u32, usize)> = BTreeMap::new();
    let mut users: Vec<(String, String, u32, usize)> = Vec::new();
    let mut clusters: Vec<String> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let row = raw.trim_end_matches('\r');
        if row.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = row.split('|').map(str::trim).collect();
        if i == 0 && is_header(&fields) {
            cols = [None; 5];
            for (at, name) in fields.iter().enumerate() {
                let key = name.to_ascii_lowercase().replace([' ', '_'], "");
                let which = match key.as_str() {
                    "cluster" => 0,
                    "account" => 1,
                    "user" => 2,
                    "share" | "fairshare" | "shares" => 3,
                    "parname" | "parentname" => 4,
                    _ => continue,
                };
                cols[which] = Some(at);
            }
            for (k, c) in cols.iter().enumerate().take(4) {
                if c.is_none() {
                    return Err(AssocError {
                        dump: ASSOC_DUMP,
                        line,
                        reason: format!("the header has no {} column", COLUMNS[k]),
                    });
                }
            }
            continue;
        }
        let bad = |reason: String| AssocError {
            dump: ASSOC_DUMP,
            line,
            reason,
        };
        let get = |k: usize| cols[k].and_then(|c| fields.get(c).copied()).unwrap_or("");
        if fields.len() < 4 {
            return Err(bad(format!(
                "{} field(s); expected Cluster|Account|User|Share",
                fields.len()
            )));
        }
        let (cluster, account, user, share) = (get(0), get(1), get(2), get(3));
        if account.is_empty() {
            return Err(bad("no account".into()));
        }
        if !clusters.iter().any(|c| c == cluster) {
            clusters.push(cluster.to_string());
        }
        let shares = match share.to_ascii_lowercase().as_str() {
            // `Fairshare=parent`: the association shares its parent's (Slurm); not modelled.
            "parent" => return Err(bad("Share=parent is not supported".into())),
            s => s.parse::<u32>().map_err(|_| {
                bad(format!(
                    "Share '{share}' is not a whole number of shares ≥ 0"
                ))
            })?,
        };
        if user.is_empty() {
            if account == "root" {
                continue; // the tree's root: its own shares do not matter
            }
            let parent = match get(4) {
                "" | "root" => None,
                p => Some(p.to_string()),
            };
            accounts.insert(account.to_string(), (parent, shares, line));
        } else {
            users.push((user.to_string(), account.to_string(), shares, line));
        }
    }
    if clusters.len() > 1 {
        return Err(AssocError {
            dump: ASSOC_DUMP,
            line: 0,
            reason: format!(
                "rows of {} clusters ({}): keep one cluster's (sacctmgr … cluster=NAME)",
                clusters.len(),
                clusters.join(", ")
            ),
        });
    }
    Ok(Rows { accounts, users })
}

/// Each user's normalised shares, down the tree.
fn tree(rows: Rows) -> Result<AssocTree, AssocError> {
    let Rows { accounts, users } = rows;
    // Raw shares of each parent's children (None: root's).
    let mut level: BTreeMap<Option<String>, u64> = BTreeMap::new();
    for (parent, shares, _) in accounts.values() {
        *level.entry(parent.clone()).or_default() += *shares as u64;
    }
    let parent_of = |account: &str| -> Option<String> {
        if account == "root" {
            None
        } else {
            Some(account.to_string())
        }
    };
    for (_, account, shares, _) in &users {
        *level.entry(parent_of(account)).or_default() += *shares as u64;
    }
    // An account's normalised shares: down its path from root.
    let account_norm = |account: &str, line: usize| -> Result<f64, AssocError> {
        let mut norm = 1.0f64;
        let mut at = parent_of(account);
        let mut depth = 0;
        while let Some(name) = at {
            let Some((parent, shares, _)) = accounts.get(&name) else {
                return Err(AssocError {
                    dump: ASSOC_DUMP,
                    line,
                    reason: format!("account '{name}' has no row of its own"),
                });
            };
            let total = level.get(parent).copied().unwrap_or(0);
            norm *= if total == 0 {
                0.0
            } else {
                *shares as f64 / total as f64
            };
            at = parent.clone();
            depth += 1;
            if depth > accounts.len() {
                return Err(AssocError {
                    dump: ASSOC_DUMP,
                    line,
                    reason: format!("the accounts above '{account}' form a cycle"),
                });
            }
        }
        Ok(norm)
    };
    // Every account reaches root (Fair Tree walks them all, with users or not).
    for (name, (_, _, line)) in &accounts {
        account_norm(name, *line)?;
    }
    let mut out: Vec<UserAssoc> = Vec::new();
    let mut notes = Vec::new();
    let mut repeats = 0;
    let mut extra_users = Vec::new();
    // Each user's first association, by position in `out`.
    let mut first_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (user, account, shares, line) in &users {
        if let Some(first) = first_of.get(user.as_str()).map(|&i| &out[i]) {
            repeats += 1;
            extra_users.push((user.clone(), account.clone(), *shares));
            notes.push(format!(
                "user {user} is in accounts {} and {account}: jobs that name neither run under the first",
                first.account
            ));
            continue;
        }
        let total = level.get(&parent_of(account)).copied().unwrap_or(0);
        let own = if total == 0 {
            0.0
        } else {
            *shares as f64 / total as f64
        };
        first_of.insert(user.as_str(), out.len());
        out.push(UserAssoc {
            user: user.clone(),
            account: account.clone(),
            raw_shares: *shares,
            norm_shares: account_norm(account, *line)? * own,
        });
    }
    // Accounts in file order (sacctmgr prints the tree depth first), for Fair Tree.
    let mut in_file_order: Vec<(usize, (String, String, u32))> = accounts
        .iter()
        .map(|(name, (parent, shares, line))| {
            let parent = parent.clone().unwrap_or_else(|| "root".into());
            (*line, (name.clone(), parent, *shares))
        })
        .collect();
    in_file_order.sort_by_key(|(line, _)| *line);
    Ok(AssocTree {
        users: out,
        root_level_shares: level.get(&None).copied().unwrap_or(0),
        notes,
        repeats,
        accounts: in_file_order.into_iter().map(|(_, a)| a).collect(),
        extra_users,
    })
}

fn is_header(fields: &[&str]) -> bool {
    fields
        .iter()
        .any(|f| f.eq_ignore_ascii_case("account") || f.eq_ignore_ascii_case("cluster"))
}

/// Normalised shares are scaled to this when the tree has accounts.
const SCALE: f64 = (1u64 << 30) as f64;

impl AssocTree {
    /// Sets `config.shares` and `config.other_shares` for a workload whose users `user_id`
    /// numbers (a user of the dump with no job gets none). Returns notes for the user: users
    /// of the workload the dump lacks (1 share each, as Slurm would have refused their jobs
    /// with `AccountingStorageEnforce=associations`), and the scaling when there are accounts.
    pub fn apply(
        &self,
        config: &mut SlurmConfig,
        user_id: impl Fn(&str) -> Option<i32>,
        workload_users: &[i32],
    ) -> Vec<String> {
        let mut notes = self.notes.clone();
        // Looked up through sets and maps: a dump may hold tens of thousands of users.
        let workload: std::collections::BTreeSet<i32> = workload_users.iter().copied().collect();
        let matched: Vec<(i32, &UserAssoc)> = self
            .users
            .iter()
            .filter_map(|u| user_id(&u.user).map(|id| (id, u)))
            .filter(|(id, _)| workload.contains(id))
            .collect();
        let ids: BTreeMap<&str, i32> = matched
            .iter()
            .map(|(id, u)| (u.user.as_str(), *id))
            .collect();
        // Flat: every user of the workload directly under root, and nowhere else (a second
        // association is an account of its own for the jobs that name it).
        let flat = matched.iter().all(|(_, u)| u.account == "root")
            && !self
                .extra_users
                .iter()
                .any(|(user, ..)| ids.contains_key(user.as_str()));
        config.shares.clear();
        config.accounts.clear();
        // Every user association counts in Fair Tree's ranks, a user's second account too.
        config.other_users = (self.users.len() + self.repeats - matched.len()) as u32;
        if flat {
            let mine: u64 = matched.iter().map(|(_, u)| u.raw_shares as u64).sum();
            for (id, u) in &matched {
                config.shares.push(UserShares {
                    user: *id,
                    shares: u.raw_shares,
                });
            }
            config.other_shares = self.root_level_shares.saturating_sub(mine);
        } else {
            let mut mine = 0u64;
            for (id, u) in &matched {
                let s = (u.norm_shares * SCALE).round() as u32;
                mine += s as u64;
                config.shares.push(UserShares {
                    user: *id,
                    shares: s,
                });
            }
            config.other_shares = (SCALE as u64).saturating_sub(mine);
            config.accounts = self.account_tree(&ids, workload_users);
            notes.push(if config.fair_tree {
                "users sit under accounts: Fair Tree ranks the accounts at each level, then \
                 the associations within them (a job runs under the account it names, else \
                 its user's first)"
                    .into()
            } else {
                "users sit under accounts: their normalised shares are scaled to 2^30 shares; \
                 usage is still each user's own (Slurm's classic formula mixes in the account's)"
                    .into()
            });
        }
        config.shares.sort_by_key(|s| s.user);
        let found: std::collections::BTreeSet<i32> = ids.values().copied().collect();
        let missing: Vec<String> = workload_users
            .iter()
            .filter(|id| !found.contains(id))
            .map(|id| id.to_string())
            .collect();
        if !missing.is_empty() {
            notes.push(format!(
                "{} user(s) of the workload have no association (1 share each): {}",
                missing.len(),
                missing.join(", ")
            ));
        }
        notes
    }

    /// The whole tree for Fair Tree ([`SlurmConfig::accounts`]): `root` first, then every
    /// account in file order, each with the workload's users in it (`ids`: their numbers
    /// by name) and the raw shares of its user associations with no job here. A workload
    /// user the dump lacks sits under `root` with 1 share.
    fn account_tree(
        &self,
        ids: &BTreeMap<&str, i32>,
        workload_users: &[i32],
    ) -> Vec<AccountShares> {
        let found: std::collections::BTreeSet<i32> = ids.values().copied().collect();
        let mut tree = vec![AccountShares {
            name: "root".into(),
            parent: String::new(),
            shares: 1,
            users: Vec::new(),
            idle_users: Vec::new(),
        }];
        tree.extend(
            self.accounts
                .iter()
                .map(|(name, parent, shares)| AccountShares {
                    name: name.clone(),
                    parent: parent.clone(),
                    shares: *shares,
                    users: Vec::new(),
                    idle_users: Vec::new(),
                }),
        );
        let index: BTreeMap<String, usize> = tree
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.clone(), i))
            .collect();
        let at = |account: &str| index.get(account).copied();
        for u in &self.users {
            let Some(a) = at(&u.account) else {
                continue;
            };
            match ids.get(u.user.as_str()) {
                Some(&id) => tree[a].users.push(UserShares {
                    user: id,
                    shares: u.raw_shares,
                }),
                None => tree[a].idle_users.push(u.raw_shares),
            }
        }
        for (user, account, shares) in &self.extra_users {
            let Some(a) = at(account) else {
                continue;
            };
            match ids.get(user.as_str()) {
                Some(&id) => tree[a].users.push(UserShares {
                    user: id,
                    shares: *shares,
                }),
                None => tree[a].idle_users.push(*shares),
            }
        }
        for id in workload_users {
            if !found.contains(id) {
                tree[0].users.push(UserShares {
                    user: *id,
                    shares: 1,
                });
            }
        }
        tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLAT: &str = "Cluster|Account|User|Share\n\
        gsreplay|root||1\n\
        gsreplay|root|alice|2\n\
        gsreplay|root|bob|1\n\
        gsreplay|root|carol|1\n\
        gsreplay|root|root|1\n";

    #[test]
    fn flat_tree_gives_raw_shares_and_roots_own() {
        let t = read_assoc(FLAT.as_bytes()).unwrap();
        assert_eq!(t.root_level_shares, 5);
        assert_eq!(t.users[0].norm_shares, 0.4);
        let mut c = SlurmConfig::default();
        let ids = |n: &str| {
            ["alice", "bob", "carol"]
                .iter()
                .position(|u| *u == n)
                .map(|i| i as i32)
        };
        let notes = t.apply(&mut c, ids, &[0, 1, 2]);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(c.other_shares, 1);
        assert_eq!(c.other_users, 1, "the root user");
        assert_eq!(
            c.shares
                .iter()
                .map(|s| (s.user, s.shares))
                .collect::<Vec<_>>(),
            [(0, 2), (1, 1), (2, 1)]
        );
    }

    #[test]
    fn accounts_multiply_down_the_tree() {
        let dump = "Cluster|Account|User|Share|Par Name\n\
            c|root||1|\nc|root|root|1|\nc|phys||3|root\nc|chem||1|root\n\
            c|phys|alice|1|\nc|phys|dan|1|\nc|chem|bob|1|\n";
        let t = read_assoc(dump.as_bytes()).unwrap();
        // root user 1/(1+3+1) = 0.2; phys 0.6, alice 0.6·1/2; chem 0.2, bob 0.2.
        let norm: Vec<f64> = t.users.iter().map(|u| u.norm_shares).collect();
        assert_eq!(norm, [0.2, 0.3, 0.3, 0.2]);
        let mut c = SlurmConfig::default();
        let notes = t.apply(&mut c, |n| (n == "alice").then_some(7), &[7, 8]);
        assert_eq!(c.shares.len(), 1);
        assert_eq!(c.shares[0].shares, (0.3 * SCALE).round() as u32);
        assert!(notes.iter().any(|n| n.contains("scaled")));
        assert!(notes
            .iter()
            .any(|n| n.contains("no association") && n.contains('8')));
        // The tree Fair Tree walks: root (the root user idle, user 8 the dump lacks), then
        // phys (alice as 7, dan idle) and chem (bob idle), in file order.
        let account =
            |name: &str, parent: &str, shares, users: &[(i32, u32)], idle: &[u32]| AccountShares {
                idle_users: idle.to_vec(),
                ..super::super::fair_tree::tests::account(name, parent, shares, users)
            };
        assert_eq!(
            c.accounts,
            [
                account("root", "", 1, &[(8, 1)], &[1]),
                account("phys", "root", 3, &[(7, 1)], &[1]),
                account("chem", "root", 1, &[], &[1]),
            ]
        );
        assert_eq!(c.check(), Ok(()));
    }

    #[test]
    fn a_tree_that_is_not_one_is_refused() {
        let mut c = SlurmConfig::default();
        let t =
            read_assoc(b"Cluster|Account|User|Share|Par Name\nc|a||1|root\nc|a|u|1|\n").unwrap();
        t.apply(&mut c, |_| Some(1), &[1]);
        assert_eq!(c.check(), Ok(()));
        let mut bad = c.clone();
        bad.accounts[1].parent = "nowhere".into();
        assert!(bad.check().unwrap_err().contains("nowhere"));
        let mut bad = c.clone();
        bad.accounts[1].parent = "a".into();
        assert!(bad.check().unwrap_err().contains("cycle"));
        let mut bad = c.clone();
        bad.accounts.swap(0, 1);
        assert!(bad.check().is_err());
        // A user in two accounts is two associations; twice in one is refused.
        let mut two = c.clone();
        two.accounts[0].users = two.accounts[1].users.clone();
        assert_eq!(two.check(), Ok(()));
        let mut bad = c.clone();
        let again = bad.accounts[1].users.clone();
        bad.accounts[1].users.extend(again);
        assert!(bad.check().unwrap_err().contains("twice in account a"));
        // A chain of accounts: 64 levels below root are a tree, 65 are refused.
        let chain = |levels: usize| SlurmConfig {
            accounts: (0..=levels)
                .map(|i| AccountShares {
                    name: if i == 0 {
                        "root".into()
                    } else {
                        format!("a{i}")
                    },
                    parent: match i {
                        0 => String::new(),
                        1 => "root".into(),
                        _ => format!("a{}", i - 1),
                    },
                    shares: 1,
                    users: Vec::new(),
                    idle_users: Vec::new(),
                })
                .collect(),
            ..SlurmConfig::default()
        };
        assert_eq!(chain(super::super::MAX_ACCOUNT_DEPTH).check(), Ok(()));
        assert!(chain(super::super::MAX_ACCOUNT_DEPTH + 1).check().is_err());
    }

    #[test]
    fn bad_rows_name_their_line() {
        let e = read_assoc(b"Cluster|Account|User|Share\nc|root|a|lots\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.reason.contains("lots"), "{e}");
        let e = read_assoc(b"c|root|a|1\nd|root|b|1\n").unwrap_err();
        assert!(e.reason.contains("2 clusters"), "{e}");
        let e = read_assoc(b"c|phys|a|1\n").unwrap_err();
        assert!(e.reason.contains("phys"), "{e}");
        // An account above no user must reach root too.
        let e =
            read_assoc(b"Account|User|Share|Par Name|Cluster\nx||1|y|c\nu|v|1||c\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(read_assoc(b"x\n").is_err());
        assert!(read_assoc("\u{0}|\u{ff}|||\n".as_bytes()).is_err());
    }
}
