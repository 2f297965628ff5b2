//! The qmgr command language: every line is parsed and run against a real home (in
//! /dev/shm when available) as its manager; the state must always reload. One home per
//! process, reset every 200 inputs so it stays small.
#![no_main]

use fairsort::qmgr::{run_request, script_requests};
use fairsort::home::Home;
use libfuzzer_sys::fuzz_target;
use std::cell::RefCell;
use std::path::PathBuf;

thread_local! {
    static HOME: RefCell<(Option<PathBuf>, u32)> = const { RefCell::new((None, 0)) };
}

fn home_dir() -> PathBuf {
    HOME.with(|h| {
        let mut h = h.borrow_mut();
        h.1 += 1;
        if h.0.is_none() || h.1 % 200 == 0 {
            let base = if std::path::Path::new("/dev/shm").is_dir() {
                PathBuf::from("/dev/shm")
            } else {
                std::env::temp_dir()
            };
            let dir = base.join(format!("fairsort-fuzz-qmgr-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            h.0 = Some(dir);
        }
        h.0.clone().unwrap_or_default()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = home_dir();
    let Ok(home) = Home::open(Some(&dir)) else {
        return;
    };
    let user = fairsort::home::current_user();
    let host = fairsort::home::current_host();
    for (i, line) in script_requests(text).iter().enumerate().take(8) {
        let _ = run_request(&home, &user, &host, line, i % 2 == 1);
    }
    home.load()
        .expect("the state must reload after any request");
});
