//! Which protocol era a swarm seed draws its run for: the 2025 session transport, the
//! 2026-07-28 stateless one, or the migration between them (servers and clients that
//! speak one, the other or both, and deploys that change which).
//!
//! Each era's draws come from a ChaCha stream of their own, and the choice of era under
//! [`SwarmEra::Mixed`] from another, so adding an era moves no seed of the others: the
//! 2025 draws of [`crate::swarm::generate`] keep their bytes for every seed, and so do
//! the 2026-07-28 draws of [`crate::swarm_modern`].

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Salt of the stream that picks a seed's era under [`SwarmEra::Mixed`].
const ERA_PICK_SALT: u64 = 0x2026_0728_e4a0_0002;

/// Which protocol era the swarm draws runs for.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum SwarmEra {
    /// 2025 session transport only (what every seed drew before the 2026-07-28 runs).
    #[default]
    Legacy,
    /// 2026-07-28 stateless transport only.
    Modern,
    /// The migration between the two: servers that speak either era or both (with or
    /// without 2025 sessions), clients that probe for the era or speak 2025 only, and
    /// deploys that change the server's era ([`crate::swarm_migration`]).
    Migration,
    /// Half the seeds 2025, a quarter 2026-07-28, a quarter migration, chosen by the seed.
    Mixed,
}

/// The era one seed's run is drawn for (what [`SwarmEra::Mixed`] resolves to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawnEra {
    Legacy,
    Modern,
    Migration,
}

impl SwarmEra {
    pub fn is_legacy(&self) -> bool {
        *self == SwarmEra::Legacy
    }

    /// `legacy`, `modern`, `migration`, `mixed`.
    pub fn name(self) -> &'static str {
        match self {
            SwarmEra::Legacy => "legacy",
            SwarmEra::Modern => "modern",
            SwarmEra::Migration => "migration",
            SwarmEra::Mixed => "mixed",
        }
    }

    pub fn parse(text: &str) -> Option<SwarmEra> {
        match text {
            "legacy" => Some(SwarmEra::Legacy),
            "modern" => Some(SwarmEra::Modern),
            "migration" => Some(SwarmEra::Migration),
            "mixed" => Some(SwarmEra::Mixed),
            _ => None,
        }
    }

    /// The era `seed` draws its run for. Under `Mixed` the first draw keeps the half of
    /// the seeds that were 2025 before the migration era existed; a second splits the
    /// other half between 2026-07-28 and migration.
    pub fn draw(self, seed: u64) -> DrawnEra {
        match self {
            SwarmEra::Legacy => DrawnEra::Legacy,
            SwarmEra::Modern => DrawnEra::Modern,
            SwarmEra::Migration => DrawnEra::Migration,
            SwarmEra::Mixed => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed ^ ERA_PICK_SALT);
                if !rng.random_bool(0.5) {
                    DrawnEra::Legacy
                } else if rng.random_bool(0.5) {
                    DrawnEra::Modern
                } else {
                    DrawnEra::Migration
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_draws_every_era_and_names_round_trip() {
        let mut seen = [0; 3];
        for seed in 0..400 {
            seen[match SwarmEra::Mixed.draw(seed) {
                DrawnEra::Legacy => 0,
                DrawnEra::Modern => 1,
                DrawnEra::Migration => 2,
            }] += 1;
        }
        assert!(seen[0] > 150 && seen[1] > 60 && seen[2] > 60, "{seen:?}");
        for era in [
            SwarmEra::Legacy,
            SwarmEra::Modern,
            SwarmEra::Migration,
            SwarmEra::Mixed,
        ] {
            assert_eq!(SwarmEra::parse(era.name()), Some(era));
        }
        assert_eq!(SwarmEra::parse("future"), None);
    }
}
