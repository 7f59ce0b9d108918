//! The hooks a script may define: [`Hook`] and the [`HOOKS`] table, generated from core's
//! one hook table ([`carcassonne_core::for_each_hook!`]).
//!
//! Every core hook becomes a script hook of the same name, with the parameters its
//! arguments give a script ([`script_params!`]). [`FORMS`] only adds what a table cannot
//! derive: a script name of its own (`strength` for `strength_delta`), one hook split into
//! several (the windows), a cheaper sibling (`forbidden_cells`), and the words of the guide.
//! A core hook without a form still reaches scripts, by its own name and with core's doc.

/// A script hook: its row in [`HOOKS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hook(u8);

impl Hook {
    /// Its row in [`HOOKS`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The script hook named `name`; naming one that does not exist fails the build when
    /// used in a constant.
    pub const fn named(name: &str) -> Hook {
        let mut i = 0;
        while i < HOOKS.len() {
            if same(HOOKS[i].name, name) {
                return Hook(i as u8);
            }
            i += 1;
        }
        panic!("no script hook of that name")
    }

    /// The first script hook through which core hook `core` reaches a script.
    pub const fn of_core(core: &str) -> Hook {
        let mut i = 0;
        while i < HOOKS.len() {
            if same(HOOKS[i].core, core) {
                return Hook(i as u8);
            }
            i += 1;
        }
        panic!("no script hook rides on that core hook")
    }
}

/// The roles the host treats in a particular way (memo, guards, native declarations).
#[allow(non_upper_case_globals)]
impl Hook {
    pub const Setup: Hook = Hook::named("setup");
    pub const PrepareGame: Hook = Hook::named("prepare_game");
    pub const StartGame: Hook = Hook::named("start_game");
    pub const ApplySetting: Hook = Hook::named("apply_setting");
    pub const OnTileDrawn: Hook = Hook::named("on_tile_drawn");
    pub const FiltersTile: Hook = Hook::named("filters_tile");
    pub const FilterPlacements: Hook = Hook::named("filter_placements");
    pub const ForbiddenCells: Hook = Hook::named("forbidden_cells");
    pub const OnTilePlaced: Hook = Hook::named("on_tile_placed");
    pub const DeployActions: Hook = Hook::named("deploy_actions");
    pub const ApplyAction: Hook = Hook::named("apply_action");
    pub const WindowTurnStart: Hook = Hook::named("window_turn_start");
    pub const WindowBeforeDraw: Hook = Hook::named("window_before_draw");
    pub const WindowAfterDeploy: Hook = Hook::named("window_after_deploy");
    pub const WindowBeforeScoring: Hook = Hook::named("window_before_scoring");
    pub const WindowAfterScoring: Hook = Hook::named("window_after_scoring");
    pub const WindowAfterTurn: Hook = Hook::named("window_after_turn");
    pub const WindowBeforeFinalScoring: Hook = Hook::named("window_before_final_scoring");
    pub const PromptActions: Hook = Hook::named("prompt_actions");
    pub const FilterPromptActions: Hook = Hook::named("filter_prompt_actions");
    pub const ApplyPrompt: Hook = Hook::named("apply_prompt");
    pub const Strength: Hook = Hook::named("strength");
    pub const BeforeScoring: Hook = Hook::named("before_scoring");
    pub const AfterScoring: Hook = Hook::named("after_scoring");
    pub const OnFigureRemoved: Hook = Hook::named("on_figure_removed");
    pub const OnTurnEnd: Hook = Hook::named("on_turn_end");
    pub const FinalScoring: Hook = Hook::named("final_scoring");
}

/// One entry of [`HOOKS`].
#[derive(Clone, Copy, Debug)]
pub struct HookSpec {
    /// The role.
    pub hook: Hook,
    /// Script function name.
    pub name: &'static str,
    /// The core hook ([`carcassonne_core::HOOKS`]) through which the engine reaches it.
    pub core: &'static str,
    /// Parameter names, in order.
    pub params: &'static [&'static str],
    /// What it returns.
    pub returns: &'static str,
    /// What it is for.
    pub doc: &'static str,
    /// The argument a guard may look at.
    pub guard_arg: GuardArg,
}

/// What a guard of a hook is indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuardArg {
    /// Game-scoped guards only.
    None,
    /// Player- or game-scoped guards.
    Player,
    /// Figure- or game-scoped guards.
    Figure,
}

/// How one core hook looks to scripts, where the table alone cannot say.
struct Form {
    /// The core hook.
    core: &'static str,
    /// The script function's name.
    name: &'static str,
    /// Its parameters, when they are not the ones core's arguments give ([`script_params!`]).
    params: Option<&'static [&'static str]>,
    returns: &'static str,
    doc: &'static str,
}

const fn form(
    core: &'static str,
    name: &'static str,
    returns: &'static str,
    doc: &'static str,
) -> Form {
    Form {
        core,
        name,
        params: None,
        returns,
        doc,
    }
}

/// The script forms of core hooks, in the order the guide lists them within each core hook.
const FORMS: &[Form] = &[
    form("prepare_game", "prepare_game", "() | array of start tiles", "Before the start tiles are placed: `start` lists them, one `#{tile, x, y, rotation}` each (`rotation` in quarter turns clockwise); return an array of the same form to lay others. State values may be set here."),
    form("start_game", "start_game", "()", "A new game, start tiles placed, no figure yet."),
    form("apply_setting", "apply_setting", "()", "A test position sets part of your state (`key`, `value` are strings)."),
    form("on_tile_drawn", "on_tile_drawn", "\"keep\" | \"redraw\" | \"discard\"", "A tile was drawn for the active player."),
    form("filter_placements", "filter_placements", "array of cells", "`cells` are the edge-legal placements, one `#{x, y, rotations}` per cell (`rotations`: bit q set = legal turned by q quarter turns); return the cells that stay legal, with the bits of illegal rotations cleared."),
    Form { params: Some(&["player", "tile"]), ..form("filter_placements", "forbidden_cells", "array of #{x, y}", "The cheaper form when a rule only depends on the cell: where the drawn tile may not go; an item `#{x, y, radius: r}` forbids the whole square of cells within r of (x, y), and `reason: \"FE-2 …\"` is what a refused placement there says.") },
    form("allows_overlay", "allows_overlay", "bool", "May the tile at (x, y), already on the board, become `variant` (the same tile with an overlay such as a bridge of Bridges, Castles & Bazaars)? Return false to forbid it: asked before such an overlay is offered or laid, and for a placement that would lay one at once on a neighbour (default: yes)."),
    form("on_tile_placed", "on_tile_placed", "()", "The drawn tile was placed (before deployment and scoring)."),
    form("filters_tile", "filters_tile", "bool", "Asked once per tile kind: does `filter_placements` need to see this tile? (default: yes)"),
    Form { params: Some(&["player", "x", "y"]), ..form("deploy_step_actions", "deploy_actions", "array of actions", "Extra choices for the active player's deployment step (your own verbs).") },
    form("filter_deploy_actions", "filter_deploy_actions", "array of actions", "Return the deployment-step actions that stay allowed."),
    form("apply_action", "apply_action", "()", "The player chose one of your deployment-step actions."),
    form("open_window", "window_turn_start", "()", "Start of a turn, before the draw; queue prompts here."),
    form("open_window", "window_before_draw", "()", "Just before the active player draws: after the turn start, at the start of a second part of a turn and in every turn played after the supply ran out."),
    form("open_window", "window_after_deploy", "()", "After the deployment step, before scoring (the Tactician's window)."),
    form("open_window", "window_before_scoring", "()", "Just before the placed tile's features are scored."),
    form("open_window", "window_after_scoring", "()", "After scoring."),
    form("open_window", "window_after_turn", "()", "After the whole turn, once even when the turn has a second part (`on_turn_end` answered \"extra\"), before the next player's turn: what happens after the turn (an auction) asks here."),
    form("open_window", "window_before_final_scoring", "()", "After the last turn, before final scoring."),
    form("prompt_actions", "prompt_actions", "array of actions", "The choices of a prompt you queued, computed when it is asked (empty = skipped)."),
    Form { params: Some(&["player", "owner", "actions"]), ..form("filter_prompt_actions", "filter_prompt_actions", "array of actions", "A prompt of any expansion (`owner`: its id) is about to be asked of `player`; return the actions that stay allowed (a prompt filtered down to passing is answered with the pass).") },
    form("free_actions", "free_actions", "array of actions", "Your own actions `player` may take besides answering another expansion's prompt (a ransom at any moment): added to that prompt; `apply_action` applies one, then the prompt is asked again."),
    form("apply_prompt", "apply_prompt", "()", "The player answered your prompt."),
    form("strength_delta", "strength", "int", "Half-units added to a figure's strength in majorities (a follower is 2)."),
    form("before_scoring", "before_scoring", "() | array of awards", "A scoring is about to be applied; return new `awards` to change it."),
    form("after_scoring", "after_scoring", "()", "A scoring was applied (figures already returned)."),
    form("on_figure_removed", "on_figure_removed", "()", "A figure left the board (`reason`: \"scored\" or \"expansion\")."),
    form("on_figure_placed", "on_figure_placed", "()", "A figure came onto `segment`: deployed, moved or redeployed there (in any step or prompt, by any expansion, or by a position's set-up)."),
    form("on_turn_end", "on_turn_end", "\"next\" | \"extra\"", "End of the turn; `\"extra\"` gives the player another part (once per turn)."),
    form("final_scoring", "final_scoring", "()", "After final scoring: end bonuses."),
    form("explain_refusal", "explain_refusal", "() | string", "The player tried `action`, which the game did not offer: return why, naming your rule (`\"FE-2 a landing within 2 cells of (1,0)\"`), or `()` when the refusal is not yours. A placement refused by `forbidden_cells` or `keep_apart` already gives that item's `reason`."),
    form("describe", "describe", "array of visibles", "What a viewer shows of your state, asked whenever one draws the game: `#{type: \"title\", group, name, icon, holder, detail}` (`holder`: a player or -1), `#{type: \"figure\", name, icon, segment, stands}` (a neutral figure shown by name; `stands`: \"segment\" (default) or \"tile\"), `#{type: \"place\", group, name, segment}`, `#{type: \"foreign\", scheme, segment, tile, feature, location}` (how another program, `jcz`, names an off-board feature). Strings are cut to 200 characters."),
];

/// The parameters a script gets for core arguments named so: the context, view, rules and
/// pure outputs (`out`) give none, a cell gives `x, y`, a prompt `player, code, arg`, and
/// any other argument one parameter of its own name.
macro_rules! script_params {
    (@acc [$($out:expr,)*]) => { &[$($out),*] };
    (@acc [$($out:expr,)*] ctx $($rest:ident)*) => { script_params!(@acc [$($out,)*] $($rest)*) };
    (@acc [$($out:expr,)*] view $($rest:ident)*) => { script_params!(@acc [$($out,)*] $($rest)*) };
    (@acc [$($out:expr,)*] rules $($rest:ident)*) => { script_params!(@acc [$($out,)*] $($rest)*) };
    (@acc [$($out:expr,)*] out $($rest:ident)*) => { script_params!(@acc [$($out,)*] $($rest)*) };
    (@acc [$($out:expr,)*] window $($rest:ident)*) => { script_params!(@acc [$($out,)*] $($rest)*) };
    (@acc [$($out:expr,)*] pos $($rest:ident)*) => { script_params!(@acc [$($out,)* "x", "y",] $($rest)*) };
    (@acc [$($out:expr,)*] prompt $($rest:ident)*) => {
        script_params!(@acc [$($out,)* "player", "code", "arg",] $($rest)*)
    };
    (@acc [$($out:expr,)*] $a:ident $($rest:ident)*) => {
        script_params!(@acc [$($out,)* stringify!($a),] $($rest)*)
    };
}

/// A core hook as the table gives it.
struct CoreHook {
    name: &'static str,
    /// The parameters its arguments give a script.
    params: &'static [&'static str],
    /// Core's documentation of it.
    doc: &'static str,
}

macro_rules! core_hooks {
    ($(
        $(#[doc = $doc:literal])*
        [$($kind:ident $bit:ident $(= $n:expr)?)?]
        fn $name:ident(&self $(, $arg:ident : $ty:ty)* $(,)?) -> $ret:ty $default:block
    )*) => {
        /// Every core hook, in table order.
        const CORE: &[CoreHook] = &[$(CoreHook {
            name: stringify!($name),
            params: script_params!(@acc [] $($arg)*),
            doc: concat!($($doc),*),
        }),*];
    };
}

carcassonne_core::for_each_hook!(core_hooks);

/// `setup()`, the one script hook no core hook carries.
const SETUP: HookSpec = HookSpec {
    hook: Hook(0),
    name: "setup",
    core: "declare",
    params: &[],
    returns: "()",
    doc: "Once per ruleset: declare state, verbs, labels and guards.",
    guard_arg: GuardArg::None,
};

const fn rows_of(core: &str) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < FORMS.len() {
        if same(FORMS[i].core, core) {
            n += 1;
        }
        i += 1;
    }
    if n == 0 {
        1
    } else {
        n
    }
}

const fn count_rows() -> usize {
    let mut n = 1;
    let mut i = 0;
    while i < CORE.len() {
        n += rows_of(CORE[i].name);
        i += 1;
    }
    n
}

pub(crate) const HOOK_COUNT: usize = count_rows();

const fn guard_arg(params: &[&str]) -> GuardArg {
    let mut i = 0;
    while i < params.len() {
        if same(params[i], "player") {
            return GuardArg::Player;
        }
        if same(params[i], "figure") {
            return GuardArg::Figure;
        }
        i += 1;
    }
    GuardArg::None
}

const fn build() -> [HookSpec; HOOK_COUNT] {
    let mut out = [SETUP; HOOK_COUNT];
    let mut n = 1;
    let mut c = 0;
    while c < CORE.len() {
        let core = &CORE[c];
        let mut found = false;
        let mut f = 0;
        while f < FORMS.len() {
            let form = &FORMS[f];
            if same(form.core, core.name) {
                let params = match form.params {
                    Some(p) => p,
                    None => core.params,
                };
                out[n] = HookSpec {
                    hook: Hook(n as u8),
                    name: form.name,
                    core: core.name,
                    params,
                    returns: form.returns,
                    doc: form.doc,
                    guard_arg: guard_arg(params),
                };
                n += 1;
                found = true;
            }
            f += 1;
        }
        if !found {
            out[n] = HookSpec {
                hook: Hook(n as u8),
                name: core.name,
                core: core.name,
                params: core.params,
                returns: "see its documentation",
                doc: core.doc,
                guard_arg: guard_arg(core.params),
            };
            n += 1;
        }
        c += 1;
    }
    out
}

/// Every hook a script may define (the `docs/modding.md` table is generated from this):
/// `setup`, then every core hook in core's order, each in its script forms.
pub const HOOKS: &[HookSpec] = &build();

const _: () = assert!(HOOK_COUNT < u8::MAX as usize);

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Every form names a core hook (a form for a hook core dropped fails the build).
const _: () = {
    let mut f = 0;
    while f < FORMS.len() {
        let mut ok = false;
        let mut c = 0;
        while c < CORE.len() {
            ok |= same(CORE[c].name, FORMS[f].core);
            c += 1;
        }
        assert!(ok, "a script form names a hook core does not have");
        f += 1;
    }
};
