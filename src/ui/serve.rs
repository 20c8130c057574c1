//! Serve › Serve this stream… (issue 15.2): the open stream as an AG-UI
//! endpoint whose front end follows the timeline. Stepping forward sends
//! the next events, playing sends them at the recorded timing (the cursor
//! moves so), and moving back before what was sent ends the response, so
//! that the front end's next run starts again from step 0 and catches up
//! to the cursor. The window lists what each front end posted and what is
//! wrong with it (R50, E13); the status bar says where serving is.
//!
//! The engine is [`crate::serve`]; this is only its controls.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use egui::Ui;

use super::theme;
use crate::app_model::state::AppState;
use crate::app_model::words;
use crate::serve::{Pace, ServeConfig, ServeHandle, ServedFile, Server};

/// How often the window and the status bar look at the server.
const POLL: Duration = Duration::from_millis(200);

/// The Serve control: its window and the server it started.
pub struct ServePanel {
    /// The window shows.
    pub open: bool,
    /// The address to listen on (loopback only).
    pub listen: String,
    server: Option<Server>,
    /// The stream served: its file and session.
    served: Option<(PathBuf, Option<i64>)>,
    /// Why serving could not start, or why it stopped.
    message: Option<String>,
}

impl Default for ServePanel {
    fn default() -> Self {
        Self {
            open: false,
            listen: "127.0.0.1:8787".to_owned(),
            server: None,
            served: None,
            message: None,
        }
    }
}

impl ServePanel {
    /// The running server's handle, if serving.
    pub fn handle(&self) -> Option<ServeHandle> {
        self.server.as_ref().map(Server::handle)
    }

    /// Where it listens, if serving.
    pub fn address(&self) -> Option<SocketAddr> {
        self.server.as_ref().map(Server::address)
    }

    /// Why serving could not start or stopped, if it did.
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Starts serving the open stream, following the cursor.
    pub fn start(&mut self, state: &AppState) {
        self.stop();
        match self.try_start(state) {
            Ok(()) => self.message = None,
            Err(why) => self.message = Some(why),
        }
    }

    fn try_start(&mut self, state: &AppState) -> Result<(), String> {
        let doc = state.doc().ok_or("no stream is open")?;
        let listen: Vec<SocketAddr> = self
            .listen
            .trim()
            .to_socket_addrs()
            .map_err(|e| format!("{:?} is not HOST:PORT ({e})", self.listen))?
            .collect();
        if let Some(remote) = listen.iter().find(|a| !a.ip().is_loopback()) {
            return Err(format!(
                "{remote} is not a loopback address: the app serves this machine only \
                 (agui-replay serve --allow-remote serves others)"
            ));
        }
        let file = ServedFile::load(&doc.path, doc.session).map_err(|e| e.to_string())?;
        let mut config = ServeConfig::new(listen);
        config.pace = Pace::Follow;
        let server = Server::start(file, config).map_err(|e| e.to_string())?;
        server.handle().follow(state.step().get());
        self.server = Some(server);
        self.served = Some((doc.path.clone(), doc.session));
        Ok(())
    }

    /// Stops serving (the front end sees its stream end).
    pub fn stop(&mut self) {
        if let Some(server) = self.server.take()
            && let Err(error) = server.stop()
        {
            self.message = Some(error.to_string());
        }
        self.served = None;
    }

    /// Once a frame: the front end follows the cursor; another stream
    /// opened stops serving the one before. Returns when to look again.
    pub fn follow(&mut self, state: &AppState) -> Option<Duration> {
        let server = self.server.as_ref()?;
        let same = state
            .doc()
            .is_some_and(|doc| self.served.as_ref() == Some(&(doc.path.clone(), doc.session)));
        if !same {
            self.stop();
            self.message = Some("Serving stopped: another stream was opened".to_owned());
            return None;
        }
        while server.events().try_recv().is_ok() {}
        server.handle().follow(state.step().get());
        Some(POLL)
    }
}

/// "Serving http://127.0.0.1:8787 · client 127.0.0.1:51234 received 3 of
/// 12 events" (the status bar's part).
pub fn status_text(handle: &ServeHandle) -> String {
    let status = handle.status();
    let mut text = format!("Serving http://{}", status.address);
    match status.client {
        None => text.push_str(" · no client yet"),
        Some(client) => {
            text.push_str(&format!(
                " · client {client} received {} of {}",
                words::thousands(status.sent),
                words::count(status.total, "event", "events")
            ));
            if !status.streaming {
                text.push_str(" (stream ended)");
            }
        }
    }
    text
}

/// The status bar's part: where serving is, if it is.
pub fn status_ui(ui: &mut Ui, panel: &mut ServePanel) {
    let Some(handle) = panel.handle() else { return };
    ui.separator();
    if ui
        .link(status_text(&handle))
        .on_hover_text("The front end follows the timeline cursor: click for the Serve window")
        .clicked()
    {
        panel.open = true;
    }
}

/// The Serve window.
pub fn serve_window_ui(ctx: &egui::Context, state: &AppState, panel: &mut ServePanel) {
    if !panel.open {
        return;
    }
    let mut open = panel.open;
    egui::Window::new("Serve")
        .open(&mut open)
        .default_width(460.0)
        .show(ctx, |ui| serve_ui(ui, state, panel));
    panel.open = open;
}

fn serve_ui(ui: &mut Ui, state: &AppState, panel: &mut ServePanel) {
    ui.label(
        "The open stream as an AG-UI endpoint: point your front end (HttpAgent, CopilotKit…) \
         at it, at any path. It follows the timeline: stepping forward sends the next \
         events, playing sends them at the recorded timing, moving back ends the stream \
         so that the next run starts again and catches up to the cursor.",
    );
    ui.add_space(4.0);
    match panel.handle() {
        None => {
            ui.horizontal(|ui| {
                let label = ui.label("Listen on");
                ui.add(egui::TextEdit::singleline(&mut panel.listen).desired_width(160.0))
                    .labelled_by(label.id);
                if ui
                    .add_enabled(state.doc().is_some(), egui::Button::new("Start serving"))
                    .clicked()
                {
                    panel.start(state);
                }
            });
        }
        Some(handle) => {
            let address = handle.address();
            ui.horizontal(|ui| {
                ui.label(format!("Endpoint: http://{address}"));
                if ui.button("Copy").clicked() {
                    ui.ctx().copy_text(format!("http://{address}"));
                }
                if ui.button("Stop serving").clicked() {
                    panel.stop();
                }
            });
            ui.label(status_text(&handle));
            requests_ui(ui, &handle);
        }
    }
    if let Some(message) = &panel.message {
        ui.colored_label(ui.visuals().error_fg_color, message);
    }
}

/// What each front end posted (newest first), and what is wrong with it.
fn requests_ui(ui: &mut Ui, handle: &ServeHandle) {
    let requests = handle.requests();
    ui.separator();
    if requests.is_empty() {
        ui.weak("No request yet");
        return;
    }
    ui.label(format!(
        "{} received",
        words::count(requests.len() as u64, "request", "requests")
    ));
    egui::ScrollArea::vertical()
        .max_height(320.0)
        .show(ui, |ui| {
            for (i, request) in requests.iter().enumerate().rev() {
                ui.label(format!(
                    "{}. {} {} {}, session {}",
                    i + 1,
                    request.client,
                    request.method,
                    request.path,
                    request.session
                ));
                if request.diagnostics.is_empty() {
                    ui.weak("Its run input matches the recorded one");
                }
                for d in &request.diagnostics {
                    ui.colored_label(
                        theme::severity_color(ui.visuals(), d.severity),
                        format!("{} {}: {}", d.severity, d.code, d.message),
                    );
                }
                egui::CollapsingHeader::new("Run input")
                    .id_salt(("serve-request", i))
                    .show(ui, |ui| {
                        let text = match &request.run_input {
                            Some(value) => serde_json::to_string_pretty(value)
                                .unwrap_or_else(|_| value.to_string()),
                            None => String::from_utf8_lossy(&request.body).into_owned(),
                        };
                        ui.add(egui::Label::new(egui::RichText::new(text).monospace()).wrap());
                    });
                ui.add_space(4.0);
            }
        });
}
