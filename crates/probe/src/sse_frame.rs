//! One SSE frame as the probe sees it: its `id:`, its `data:` joined, whether it set
//! `retry:`, whether it carried a comment. Parsed by hand rather than by an SSE library
//! because the probe must see what libraries hide: a frame with an id and no data (a
//! priming event), a `retry:` line, a comment-only keep-alive.

/// One frame, blank-line terminated.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseFrame {
    pub id: Option<String>,
    pub data: Option<String>,
    pub retry: bool,
    pub comment: bool,
}

impl SseFrame {
    /// Reads one frame's lines (without the blank line that ends it). `None` for a frame
    /// that carries nothing but comments: a keep-alive, which says nothing of the stream.
    pub fn parse(raw: &str) -> Option<SseFrame> {
        let mut frame = SseFrame::default();
        let mut data: Vec<&str> = Vec::new();
        for line in raw.split('\n') {
            if line.starts_with(':') {
                frame.comment = true;
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => frame.id = Some(value.to_string()),
                "data" => data.push(value),
                "retry" => frame.retry = true,
                _ => {}
            }
        }
        if !data.is_empty() {
            frame.data = Some(data.join("\n"));
        }
        if frame.comment && frame.data.is_none() && frame.id.is_none() {
            return None;
        }
        Some(frame)
    }
}

/// Bytes of an event stream in, whole frames out.
#[derive(Default)]
pub struct SseBuffer {
    pending: String,
}

impl SseBuffer {
    /// Appends a chunk (line ends normalised to `\n`).
    pub fn push(&mut self, chunk: &[u8]) {
        self.pending
            .push_str(&String::from_utf8_lossy(chunk).replace("\r\n", "\n"));
    }

    /// The next complete frame's text, if the buffer holds one.
    pub fn next_raw(&mut self) -> Option<String> {
        let end = self.pending.find("\n\n")?;
        let raw = self.pending[..end].to_string();
        self.pending.drain(..end + 2);
        Some(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_priming_event_has_an_id_and_no_data() {
        let f = SseFrame::parse("id: 7\nretry: 3000\ndata:").unwrap();
        assert_eq!(f.id.as_deref(), Some("7"));
        assert!(f.retry);
        assert_eq!(f.data.as_deref(), Some(""));
        let bare = SseFrame::parse("id: 7").unwrap();
        assert_eq!(bare.data, None);
    }

    #[test]
    fn a_keep_alive_comment_is_no_frame_but_a_comment_with_data_is() {
        assert_eq!(SseFrame::parse(": ping"), None);
        let f = SseFrame::parse(": note\ndata: {}").unwrap();
        assert!(f.comment);
        assert_eq!(f.data.as_deref(), Some("{}"));
    }

    #[test]
    fn frames_split_across_chunks_and_line_ends_are_joined() {
        let mut b = SseBuffer::default();
        b.push(b"id: 1\r\nda");
        assert_eq!(b.next_raw(), None);
        b.push(b"ta: a\r\ndata: b\r\n\r\nid: 2\n\n");
        let first = SseFrame::parse(&b.next_raw().unwrap()).unwrap();
        assert_eq!(first.data.as_deref(), Some("a\nb"));
        assert_eq!(b.next_raw().as_deref(), Some("id: 2"));
        assert_eq!(b.next_raw(), None);
    }
}
