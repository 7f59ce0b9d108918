//! Which parameters of a hook only reach the game: the hook's [`Shape`], read once from its syntax tree.

use super::*;

/// How a hook's body uses its parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Bit i: parameter i is only passed straight to traced game functions (so it is not
    /// part of the key).
    pub(crate) opaque: u32,
    /// Where: (call position, argument index, parameter index), in the hook's body.
    pub(crate) sites: Vec<(Position, u8, u8)>,
    /// The same in the bodies of the helpers the hook calls ([`through_helpers`]): one call
    /// level deeper.
    pub(crate) helper_sites: Vec<(Position, u8, u8)>,
    /// Parameters that are maps the body only reads fields of (`draft.final`): the key
    /// has those fields' values instead of the whole map.
    pub(crate) fields: Vec<(u8, ImmutableString)>,
    /// Bit i: parameter i is a map of which the body only reads the fields in `fields`
    /// (or nothing): the script gets a map of those fields alone, and sees no difference.
    pub(crate) only_fields: u32,
}

impl Shape {
    /// The hook parameter passed as argument `arg` of the game function called at `pos`,
    /// from Rhai's call `level` (the hook's body, or a helper it called).
    pub(crate) fn param_at(&self, pos: Position, arg: usize, level: usize) -> Option<u8> {
        let sites = match level {
            HOOK_CALL_LEVEL => &self.sites,
            l if l == HOOK_CALL_LEVEL + 1 => &self.helper_sites,
            _ => return None,
        };
        sites
            .iter()
            .find(|(p, a, _)| *p == pos && *a as usize == arg)
            .map(|s| s.2)
    }

    /// The fields of parameter `i` the script's map of it needs, when the body reads
    /// nothing else of it (`None`: the whole value).
    pub(crate) fn needed_fields(&self, i: usize) -> Option<&[(u8, ImmutableString)]> {
        if self.only_fields & (1 << i) == 0 {
            return None;
        }
        let from = self.fields.partition_point(|(p, _)| (*p as usize) < i);
        let to = self.fields.partition_point(|(p, _)| (*p as usize) <= i);
        Some(&self.fields[from..to])
    }

    /// Where a call starts: the number of players and the parameters that are not opaque
    /// (written into `key` when there are such parameters).
    pub(crate) fn root<'k>(
        &self,
        players: usize,
        params: &[Param<'_>],
        (rules, names): (Option<&Ruleset>, &crate::api::Names),
        key: &'k mut Option<Key>,
    ) -> Option<Root<'k>> {
        let all = (1u32 << params.len()) - 1;
        if self.opaque & all == all {
            return Some(Root::Players(players));
        }
        let key = key.insert(Key::default());
        key.push(players as i64)?;
        for (i, p) in params.iter().enumerate() {
            if self.opaque & (1 << i) != 0 {
                continue;
            }
            let mut fields = self
                .fields
                .iter()
                .filter(|(q, _)| *q as usize == i)
                .peekable();
            if fields.peek().is_some() {
                // Only these fields of the map can make a difference.
                let mut map = None;
                for (_, f) in fields {
                    let v = match p.field(f, names) {
                        Some(v) => v,
                        None => {
                            let m = map.get_or_insert_with(|| p.value(rules, names));
                            let m = m.read_lock::<Map>()?;
                            match m.get(f.as_str()) {
                                Some(v) => Some(Val::of(v)?),
                                None => None,
                            }
                        }
                    };
                    key.vals.get_or_insert_with(Vec::new).push(v);
                }
            } else {
                p.encode(key)?;
            }
        }
        Some(Root::Key(key))
    }
}

/// Finds the [`Shape`] of the hook function `name` with `arity` parameters: `traced` are
/// the names of the traced game functions (a script function of the same name hides one).
pub(crate) fn analyze(ast: &AST, name: &str, arity: usize, traced: &[&str]) -> Shape {
    let script_fns: Vec<String> = ast.iter_fn_def().map(|f| f.name.to_string()).collect();
    let Some(def) = ast
        .iter_fn_def()
        .find(|f| f.name == name && f.params.len() == arity)
    else {
        return Shape::default();
    };
    let params: Vec<String> = def.params.iter().map(|p| p.to_string()).collect();
    if params.len() > 16 {
        return Shape::default();
    }
    // The hook's body, by position (closures written inside it are in it too: their own
    // parameters can only make the analysis more careful).
    let at = |p: Position| Some((p.line()?, p.position().unwrap_or(0)));
    let (Some(start), Some(end)) = (at(def.body.start_position()), at(def.body.end_position()))
    else {
        return Shape::default();
    };
    let inside = |p: Position| at(p).is_some_and(|p| start <= p && p <= end);
    let index = |n: &str| params.iter().position(|p| p == n);
    let is_traced = |n: &str| traced.contains(&n) && !script_fns.iter().any(|f| f == n);
    let mut bad = 0u32;
    // Parameters used as a whole somewhere (not only through fields).
    let mut whole = 0u32;
    let mut fields: Vec<(u8, ImmutableString)> = Vec::new();
    let mut sites = Vec::new();
    // (helper, its arity, argument index, hook parameter) where a parameter is passed
    // straight to a script function: decided after the walk ([`through_helpers`]).
    let mut helpers: Vec<(ImmutableString, usize, usize, usize)> = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        let node = path[path.len() - 1];
        let parent = path.len().checked_sub(2).map(|i| path[i]);
        let mut shadow = |id: &rhai::Ident| {
            if let Some(p) = index(id.name.as_str()).filter(|_| inside(id.pos)) {
                bad |= 1 << p;
                whole |= 1 << p;
            }
        };
        match node {
            ASTNode::Expr(e @ Expr::Variable(v, _, pos)) if inside(*pos) => {
                if let Some(p) = index(v.1.as_str()) {
                    let call = match parent {
                        Some(ASTNode::Expr(Expr::FnCall(fc, pos)))
                        | Some(ASTNode::Stmt(Stmt::FnCall(fc, pos))) => Some((fc, *pos)),
                        _ => None,
                    };
                    let arg = call.and_then(|(fc, pos)| {
                        let i = fc.args.iter().position(|a| std::ptr::eq(a, e))?;
                        (is_traced(fc.name.as_str()) && !fc.capture_parent_scope)
                            .then_some((pos, i))
                    });
                    // Straight into a script function of the script (a helper).
                    let helper = call.and_then(|(fc, _)| {
                        let i = fc.args.iter().position(|a| std::ptr::eq(a, e))?;
                        let name = fc.name.as_str();
                        (!is_traced(name)
                            && script_fns.iter().any(|f| f == name)
                            && !fc.capture_parent_scope)
                            .then(|| (fc.name.clone(), fc.args.len(), i))
                    });
                    // `param.field`, read (not assigned, not a method call, not a chain).
                    let field = match parent {
                        Some(ASTNode::Expr(d @ Expr::Dot(x, _, _))) if std::ptr::eq(&x.lhs, e) => {
                            let assigned = path.len().checked_sub(3).is_some_and(|i| {
                                matches!(path[i], ASTNode::Stmt(Stmt::Assignment(a))
                                    if std::ptr::eq(&a.1.lhs, d))
                            });
                            match &x.rhs {
                                Expr::Property(prop, _) if !assigned => Some(prop.2.clone()),
                                _ => None,
                            }
                        }
                        _ => None,
                    };
                    match (arg, field) {
                        (Some((pos, i)), _) if i < 8 => sites.push((pos, i as u8, p as u8)),
                        (None, None) if helper.is_some() => {
                            let (name, arity, i) = helper.expect("checked");
                            helpers.push((name, arity, i, p));
                        }
                        (_, Some(f)) => {
                            fields.push((p as u8, f));
                            bad |= 1 << p;
                        }
                        _ => {
                            bad |= 1 << p;
                            whole |= 1 << p;
                        }
                    }
                }
            }
            ASTNode::Expr(Expr::FnCall(fc, pos))
            | ASTNode::Expr(Expr::MethodCall(fc, pos))
            | ASTNode::Stmt(Stmt::FnCall(fc, pos))
                if fc.capture_parent_scope && inside(*pos) =>
            {
                // The callee sees every variable.
                bad = u32::MAX;
                whole = u32::MAX;
            }
            ASTNode::Stmt(Stmt::Var(x, ..)) => shadow(&x.0),
            ASTNode::Stmt(Stmt::For(x, ..)) => {
                shadow(&x.0);
                if let Some(c) = &x.1 {
                    shadow(c);
                }
            }
            ASTNode::Stmt(Stmt::TryCatch(x, pos)) if inside(*pos) => {
                if let Expr::Variable(v, _, _) = &x.expr {
                    if let Some(p) = index(v.1.as_str()) {
                        bad |= 1 << p;
                        whole |= 1 << p;
                    }
                }
            }
            ASTNode::Stmt(Stmt::Share(x)) => {
                for (id, _) in x.iter() {
                    shadow(id);
                }
            }
            _ => {}
        }
        true
    });
    let range = (start, end);
    let mut helper_sites = Vec::new();
    let mut keyed = through_helpers(ast, range, &params, &helpers, traced, &mut helper_sites);
    bad |= keyed;
    whole |= std::mem::take(&mut keyed);
    let all = (1u32 << params.len()) - 1;
    let opaque = all & !bad;
    // A map parameter is keyed by its fields only when it reaches nothing else (a game
    // function given the whole map is checked with the map it was given then).
    let passed = sites
        .iter()
        .chain(&helper_sites)
        .fold(0u32, |m, s| m | 1 << s.2);
    fields.retain(|(p, _)| (whole | passed) & (1 << p) == 0);
    sites.retain(|s| opaque & (1 << s.2) != 0);
    helper_sites.retain(|s| opaque & (1 << s.2) != 0);
    fields.sort();
    fields.dedup();
    Shape {
        opaque,
        sites,
        helper_sites,
        fields,
        only_fields: all & !(whole | passed),
    }
}

/// A line and column of a script, comparable.
type At = (usize, usize);

fn at(p: Position) -> Option<At> {
    Some((p.line()?, p.position().unwrap_or(0)))
}

/// The body of script function `name` with `arity` parameters, as a range of positions.
fn body_of(ast: &AST, name: &str, arity: usize) -> Option<(At, At)> {
    let def = ast
        .iter_fn_def()
        .find(|f| f.name == name && f.params.len() == arity)?;
    Some((at(def.body.start_position())?, at(def.body.end_position())?))
}

/// The hook parameters passed straight to a helper (a script function of the script) that
/// must stay in the key; for the others, the helper's own sites are added to `sites` as
/// the hook parameter's. A parameter is left out of the key through a helper only when the
/// code a hook call can run is known: the hook's body and its helpers' bodies call no
/// script function but those helpers (the helpers call none), nothing is called through a
/// function pointer, every call of a helper in the hook passes the same parameter in the
/// same place, and the helper only hands that argument straight to traced game functions.
/// Otherwise the parameter is keyed, as any other use keeps it.
fn through_helpers(
    ast: &AST,
    hook: (At, At),
    params: &[String],
    helpers: &[(ImmutableString, usize, usize, usize)],
    traced: &[&str],
    sites: &mut Vec<(Position, u8, u8)>,
) -> u32 {
    let all_of = |h: &[(ImmutableString, usize, usize, usize)]| {
        h.iter().fold(0u32, |m, (_, _, _, p)| m | 1 << p)
    };
    if helpers.is_empty() {
        return 0;
    }
    let mut bodies = vec![hook];
    for (name, arity, _, _) in helpers {
        match body_of(ast, name, *arity) {
            Some(b) => bodies.push(b),
            None => return all_of(helpers),
        }
    }
    let within = |p: Position, (s, e): (At, At)| at(p).is_some_and(|p| s <= p && p <= e);
    let script_fns: Vec<String> = ast.iter_fn_def().map(|f| f.name.to_string()).collect();
    let is_helper = |n: &str, k: usize| helpers.iter().any(|(h, a, _, _)| h == n && *a == k);
    let mut ok = true;
    ast.walk(&mut |path: &[ASTNode]| {
        let (fc, pos, method) = match path[path.len() - 1] {
            ASTNode::Expr(Expr::FnCall(fc, pos)) | ASTNode::Stmt(Stmt::FnCall(fc, pos)) => {
                (fc, *pos, false)
            }
            ASTNode::Expr(Expr::MethodCall(fc, pos)) => (fc, *pos, true),
            _ => return true,
        };
        let name = fc.name.as_str();
        let in_hook = within(pos, hook);
        let in_helper = bodies[1..].iter().any(|b| within(pos, *b));
        if !(in_hook || in_helper) {
            return true;
        }
        let pointer = matches!(name, "Fn" | "call" | "curry");
        let scripted = script_fns.iter().any(|f| f == name);
        if pointer || (scripted && (method || in_helper || !is_helper(name, fc.args.len()))) {
            ok = false;
        }
        if scripted && in_hook && !method {
            // Every call of a helper passes the same parameters in the same places.
            for (h, a, i, p) in helpers {
                if h == name && *a == fc.args.len() {
                    let same = matches!(&fc.args[*i], Expr::Variable(v, _, _)
                        if v.1.as_str() == params[*p]);
                    ok &= same;
                }
            }
        }
        ok
    });
    if !ok {
        return all_of(helpers);
    }
    let mut keyed = 0u32;
    for (name, arity, i, p) in helpers {
        let shape = analyze(ast, name, *arity, traced);
        if shape.opaque & (1 << i) == 0 {
            keyed |= 1 << p;
            continue;
        }
        for (pos, arg, q) in &shape.sites {
            if *q as usize == *i && !sites.iter().any(|s| s.0 == *pos && s.1 == *arg) {
                sites.push((*pos, *arg, *p as u8));
            }
        }
    }
    keyed
}
