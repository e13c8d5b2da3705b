//! Opening a Unix stream socket as either end: listen and accept one connection, or connect
//! (retrying, since the other program may not have created its socket yet). Both the RoCE link
//! and the control channel are opened this way; both give up at a wall-clock deadline.
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use thiserror::Error;

/// How often a wait for the other end looks again.
const RETRY: Duration = Duration::from_millis(20);

#[derive(Debug, Error)]
pub enum SocketError {
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("{what} {path}: exists and is not a socket (refusing to replace it)")]
    NotASocket { what: &'static str, path: PathBuf },
    #[error("{what} {path}: nobody {action} before the deadline")]
    Timeout {
        what: &'static str,
        path: PathBuf,
        action: &'static str,
    },
}

/// Check, without touching anything, that `path` can be listened on (its directory exists;
/// anything already there is a socket, which a listener replaces) or connected to later.
pub fn check_path(what: &'static str, path: &Path, listen: bool) -> Result<(), SocketError> {
    let io_err = |source| SocketError::Io {
        what,
        path: path.to_path_buf(),
        source,
    };
    if listen {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if !dir.is_dir() {
            return Err(io_err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("directory {} does not exist", dir.display()),
            )));
        }
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            if !meta.file_type().is_socket() {
                return Err(SocketError::NotASocket {
                    what,
                    path: path.to_path_buf(),
                });
            }
        }
    } else if let Ok(meta) = std::fs::metadata(path) {
        // it may not exist yet (the other end creates it), but if it does it must be a socket
        if !meta.file_type().is_socket() {
            return Err(SocketError::NotASocket {
                what,
                path: path.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Open `path` as `what` (for messages): listen there and accept one connection, or connect to
/// it; waits until `deadline`, sleeping between tries. The stream is returned non-blocking.
pub fn open(
    what: &'static str,
    path: &Path,
    listen: bool,
    deadline: Instant,
) -> Result<UnixStream, SocketError> {
    open_with(what, path, listen, deadline, &mut || {
        std::thread::sleep(RETRY)
    })
}

/// [`open`], calling `wait` between tries instead of sleeping (to keep a simulation clocking
/// while the other end starts up; `wait` should take a few milliseconds).
pub fn open_with(
    what: &'static str,
    path: &Path,
    listen: bool,
    deadline: Instant,
    wait: &mut dyn FnMut(),
) -> Result<UnixStream, SocketError> {
    check_path(what, path, listen)?;
    let io_err = |source| SocketError::Io {
        what,
        path: path.to_path_buf(),
        source,
    };
    let stream = if listen {
        // a stale socket from an earlier run would make bind fail (check_path made sure it
        // is a socket, not some other file)
        if std::fs::symlink_metadata(path).is_ok() {
            std::fs::remove_file(path).map_err(io_err)?;
        }
        let listener = UnixListener::bind(path).map_err(io_err)?;
        listener.set_nonblocking(true).map_err(io_err)?;
        loop {
            match listener.accept() {
                Ok((s, _)) => break s,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(io_err(e)),
            }
            if Instant::now() >= deadline {
                return Err(SocketError::Timeout {
                    what,
                    path: path.to_path_buf(),
                    action: "connected",
                });
            }
            wait();
        }
    } else {
        loop {
            match UnixStream::connect(path) {
                Ok(s) => break s,
                // not there yet, or not listening yet: the other end is still starting
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
                    ) => {}
                Err(e) => return Err(io_err(e)),
            }
            if Instant::now() >= deadline {
                return Err(SocketError::Timeout {
                    what,
                    path: path.to_path_buf(),
                    action: "listened",
                });
            }
            wait();
        }
    };
    stream.set_nonblocking(true).map_err(io_err)?;
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ferroce-peer-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn listen_and_connect() {
        let dir = temp_dir("socket");
        let path = dir.join("s.sock");
        let deadline = Instant::now() + Duration::from_secs(5);
        let p2 = path.clone();
        let t = std::thread::spawn(move || open("client", &p2, false, deadline).unwrap());
        let server = open("server", &path, true, deadline).unwrap();
        let client = t.join().unwrap();
        assert!(server.peer_addr().is_ok() && client.peer_addr().is_ok());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn refuses_a_regular_file_and_times_out() {
        let dir = temp_dir("refuse");
        let file = dir.join("plain");
        std::fs::write(&file, b"x").unwrap();
        assert!(matches!(
            check_path("link", &file, true),
            Err(SocketError::NotASocket { .. })
        ));
        assert!(matches!(
            check_path("link", &dir.join("nodir/x.sock"), true),
            Err(SocketError::Io { .. })
        ));
        let gone = dir.join("nobody.sock");
        let r = open("link", &gone, false, Instant::now());
        assert!(matches!(r, Err(SocketError::Timeout { .. })));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
