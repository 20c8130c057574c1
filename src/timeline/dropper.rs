//! Dropping big states off the thread that waits (issue 14).
//!
//! A replay state holds a tree per activity; dropping one frees each of its
//! nodes, which measured about a seventh of a seek's time when a seek
//! evicted a kept state. The seek, and the app's frame, do not wait for it:
//! the value goes to one thread that drops what it is sent.

use std::sync::OnceLock;
use std::sync::mpsc::{Sender, channel};

type Garbage = Box<dyn Send>;

/// Drops `value` on the dropping thread, or here if that thread could not
/// be started.
pub fn drop_in_background<T: Send + 'static>(value: T) {
    static DROPPER: OnceLock<Option<Sender<Garbage>>> = OnceLock::new();
    let dropper = DROPPER.get_or_init(|| {
        let (sender, receiver) = channel::<Garbage>();
        std::thread::Builder::new()
            .name("drop-states".into())
            .spawn(move || receiver.into_iter().for_each(drop))
            .ok()
            .map(|_| sender)
    });
    let garbage: Garbage = Box::new(value);
    if let Some(sender) = dropper
        && let Err(unsent) = sender.send(garbage)
    {
        drop(unsent.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    #[test]
    fn what_is_sent_is_dropped() {
        let value = Arc::new(vec![0u8; 1024]);
        let weak = Arc::downgrade(&value);
        drop_in_background(value);
        let deadline = Instant::now() + Duration::from_secs(10);
        while weak.upgrade().is_some() {
            assert!(Instant::now() < deadline, "the value was never dropped");
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
