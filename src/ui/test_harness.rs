//! The one kittest harness of the panels' tests: a panel drawn over an
//! [`AppState`], the commands it pushes applied at the end of each frame, as
//! [`crate::ui::ReplayApp`] applies them.

use egui_kittest::Harness;

use crate::app_model::command::Command;
use crate::app_model::state::AppState;

/// A panel: it reads the state and pushes commands.
pub(crate) type Panel = fn(&mut egui::Ui, &AppState, &mut Vec<Command>);

/// A harness `size` big drawing `panel` over `state`, applying its
/// commands each frame.
pub(crate) fn panel_harness(
    panel: Panel,
    size: egui::Vec2,
    state: AppState,
) -> Harness<'static, AppState> {
    Harness::builder().with_size(size).build_ui_state(
        move |ui, state: &mut AppState| {
            let mut commands = Vec::new();
            panel(ui, state, &mut commands);
            state.apply(commands);
        },
        state,
    )
}
