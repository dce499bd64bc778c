//! Whether a run's verdicts are worded.
//!
//! A verdict's `summary` is a sentence for people; its kind and evidence are what a
//! program reads. The explorer and the shrinker run hundreds of thousands of seeds and
//! read only kinds and evidence, so their runs skip the sentences: formatting them was
//! the larger part of judging a run (ids joined into ranges, request lists spelled out,
//! virtual times written). Everything else about a verdict is the same either way, which
//! the tests below check on every bundled scenario.

/// Whether verdicts get their sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// Every verdict's `summary` is written (every run a person reads).
    Written,
    /// Every `summary` is left empty (bulk exploration and shrinking).
    Skipped,
}

impl Words {
    /// The sentence, written only when verdicts are worded.
    pub fn say(self, sentence: impl FnOnce() -> String) -> String {
        match self {
            Words::Written => sentence(),
            Words::Skipped => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Words;

    #[test]
    fn a_skipped_sentence_is_never_formatted() {
        let mut formatted = false;
        let said = Words::Skipped.say(|| {
            formatted = true;
            "x".to_string()
        });
        assert!(said.is_empty() && !formatted);
        assert_eq!(Words::Written.say(|| "x".to_string()), "x");
    }
}
