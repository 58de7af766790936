//! The page's engine worker as one shared handle (in the app context): typed messages out,
//! typed events in, for every panel that subscribes.
//!
//! Messages sent before the worker says `Ready` wait in a queue of values. A restart (a
//! failed worker, or one that did not answer a cancel in time: runs are cancelled by a
//! message, the worker lives on) drops the old worker and its late messages (each worker
//! has a generation), hands the files it must know to the new one first, and tells the
//! subscribers with [`WorkerEvent::Restarted`].

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use yew::Callback;

use super::engine_worker::{self, EngineWorker};
use super::protocol::{FromWorker, ToWorker};

/// What the worker did, as every subscriber sees it.
#[derive(Clone, Debug)]
pub enum WorkerEvent {
    /// A message of the current worker.
    Message(Rc<FromWorker>),
    /// The worker failed or sent something undecodable; whoever owns the files restarts it.
    Failed(String),
    /// A queued message could not be posted.
    SendFailed(String),
    /// A new worker replaced the old one: requests in flight are lost.
    Restarted,
}

/// A message waiting for the worker to be ready.
struct Pending {
    msg: ToWorker,
    file: Option<web_sys::File>,
}

#[derive(Default)]
struct Link {
    worker: Option<EngineWorker>,
    generation: u32,
    ready: bool,
    queue: Vec<Pending>,
}

#[derive(Default)]
struct Inner {
    link: RefCell<Link>,
    subscribers: RefCell<Vec<(u32, Callback<WorkerEvent>)>>,
    next_id: Cell<u32>,
}

/// The shared handle; clones are the same worker.
#[derive(Clone, Default)]
pub struct Hub(Rc<Inner>);

impl PartialEq for Hub {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// Keeps a subscription alive; dropping it unsubscribes.
pub struct Subscription {
    hub: Weak<Inner>,
    id: u32,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Some(inner) = self.hub.upgrade() {
            inner
                .subscribers
                .borrow_mut()
                .retain(|(id, _)| *id != self.id);
        }
    }
}

impl Hub {
    /// Starts a fresh worker (the first one, or in place of the current one) and loads
    /// `files` into it before anything else queued.
    pub fn restart(&self, files: Vec<(String, web_sys::File)>) -> Result<(), String> {
        let generation = {
            let mut link = self.0.link.borrow_mut();
            link.generation += 1;
            link.ready = false;
            link.worker = None;
            // The new worker knows no file: the loads go first, and no older load is kept.
            let rest = std::mem::take(&mut link.queue)
                .into_iter()
                .filter(|p| !matches!(p.msg, ToWorker::Load { .. }));
            let loads = files.into_iter().map(|(name, file)| Pending {
                msg: ToWorker::Load { name },
                file: Some(file),
            });
            link.queue = loads.chain(rest).collect();
            link.generation
        };
        let weak = Rc::downgrade(&self.0);
        let worker = engine_worker::spawn(move |m| deliver(&weak, generation, m))?;
        self.0.link.borrow_mut().worker = Some(worker);
        if generation > 1 {
            // Told after the current update is over (a subscriber may be the caller).
            let weak = Rc::downgrade(&self.0);
            wasm_bindgen_futures::spawn_local(async move {
                if let Some(inner) = weak.upgrade() {
                    broadcast(&inner, WorkerEvent::Restarted);
                }
            });
        }
        Ok(())
    }

    /// Sends a message now, or once the worker is ready.
    pub fn send(&self, msg: ToWorker) -> Result<(), String> {
        self.post(Pending { msg, file: None })
    }

    /// Sends a message with a file attached ([`ToWorker::Load`]).
    pub fn send_file(&self, msg: ToWorker, file: web_sys::File) -> Result<(), String> {
        self.post(Pending {
            msg,
            file: Some(file),
        })
    }

    fn post(&self, p: Pending) -> Result<(), String> {
        let mut link = self.0.link.borrow_mut();
        match &link.worker {
            Some(w) if link.ready => w.send(&p.msg, p.file.as_deref()),
            _ => {
                link.queue.push(p);
                Ok(())
            }
        }
    }

    /// Calls `cb` with every event from now on, until the subscription is dropped.
    pub fn subscribe(&self, cb: Callback<WorkerEvent>) -> Subscription {
        let id = self.0.next_id.get();
        self.0.next_id.set(id.wrapping_add(1));
        self.0.subscribers.borrow_mut().push((id, cb));
        Subscription {
            hub: Rc::downgrade(&self.0),
            id,
        }
    }
}

/// A message (or failure) of worker `generation`; older workers' messages are dropped.
fn deliver(hub: &Weak<Inner>, generation: u32, m: Result<FromWorker, String>) {
    let Some(inner) = hub.upgrade() else { return };
    if inner.link.borrow().generation != generation {
        return;
    }
    let event = match m {
        Ok(FromWorker::Ready) => {
            for error in flush(&inner) {
                broadcast(&inner, WorkerEvent::SendFailed(error));
            }
            return;
        }
        Ok(msg) => WorkerEvent::Message(Rc::new(msg)),
        Err(e) => WorkerEvent::Failed(e),
    };
    broadcast(&inner, event);
}

/// The worker is ready: posts the queue in order; returns the errors.
fn flush(inner: &Inner) -> Vec<String> {
    let mut link = inner.link.borrow_mut();
    link.ready = true;
    let queue = std::mem::take(&mut link.queue);
    let Some(w) = &link.worker else {
        return vec![];
    };
    queue
        .iter()
        .filter_map(|p| w.send(&p.msg, p.file.as_deref()).err())
        .collect()
}

fn broadcast(inner: &Inner, event: WorkerEvent) {
    // Copied out first: a subscriber may subscribe, unsubscribe or send.
    let subscribers: Vec<Callback<WorkerEvent>> = inner
        .subscribers
        .borrow()
        .iter()
        .map(|(_, cb)| cb.clone())
        .collect();
    for cb in subscribers {
        cb.emit(event.clone());
    }
}
