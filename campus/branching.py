"""Design branches: copy a campus, merge a branch into its parent (the designs are read and compared by
``campus.designs``, object by object by natural key; docs/planning.md).

A branch stores the branch point (``BranchBase``): one fingerprint (BLAKE2b of the compared values) per
object. A merge is a three-way comparison per key of base B, parent P and branch R: R = B means the branch
did not touch it; P = R means both sides agree; otherwise the branch's version is applied when P = B and
the object is a conflict when P ≠ B (the parent changed it too, or added the same key).
"""

from __future__ import annotations

import ast
import contextvars
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connections, router, transaction
from django.dispatch import receiver
from django.utils import timezone
from simple_history.signals import pre_create_historical_record
from simple_history.utils import bulk_create_with_history, bulk_update_with_history

from campus.designs import (
    CAMPUS,
    Design,
    InventoryModel,
    Key,
    Obj,
    campus_fields,
    inventory_models,
    key_text,
    key_text_id,
    model_names,
    read_design,
)
from campus.integrity import WriteCheck
from campus.interchange.bulk import insert_rows
from campus.models import BranchBase, Campus
from twin.api.history import record_baselines

# Above this many rows a table is written with COPY on PostgreSQL (campus.interchange.bulk).
COPY_ROWS = 1000


# ---------------------------------------------------------------- history


_change_reason: contextvars.ContextVar[str | None] = contextvars.ContextVar("change_reason", default=None)


@receiver(pre_create_historical_record, dispatch_uid="campus-branching-change-reason")
def _stamp_reason(sender, history_instance=None, **kwargs) -> None:
    reason = _change_reason.get()
    if reason and history_instance is not None and not history_instance.history_change_reason:
        history_instance.history_change_reason = reason


# ---------------------------------------------------------------- branching


def _write_rows(model, rows: list[dict], return_ids: bool) -> list[int]:
    connection = connections[router.db_for_write(model)]
    if connection.vendor == "postgresql" and len(rows) > COPY_ROWS:
        return insert_rows(model, rows, None, "", return_ids=return_ids)
    created = model.objects.bulk_create([model(**row) for row in rows], batch_size=2000)
    return [obj.pk for obj in created]


def create_branch(parent: Campus, name: str, progress: Callable[[float, str], None] | None = None) -> Campus:
    """Copy every inventory row of ``parent`` into a new campus ``name`` (new ids, same names, references
    remapped inside the copy), linked to its parent, with the branch point recorded. One transaction; the
    rows are written in bulk (COPY on PostgreSQL for the large tables), the new campus gets one history
    entry. ``progress(share, stage)`` is told how far it is (0-1: reading the design is the first 30 %,
    writing by rows the next 60 %, the branch point the rest)."""

    def report(share: float, stage: str) -> None:
        if progress is not None:
            progress(share, stage)

    with transaction.atomic():
        design = read_design(parent.pk, report=lambda share: report(0.3 * share, "reading the design"))
        total_rows = max(1, sum(len(objs) for objs in design.objects.values()))
        rows_written = 0
        report(0.3, "copying")
        now = timezone.now()
        branch = Campus(
            **{f.attname: getattr(parent, f.attname) for f in campus_fields()},
            name=name,
            parent=parent,
            branched_at=now,
        )
        branch._change_reason = f'Branched from "{parent.name}" (campus {parent.pk})'
        branch.full_clean(validate_unique=False)
        branch.save()
        referenced = {f.related_model for im in inventory_models() for f in im.fields if f.is_relation}
        new_id: dict[str, dict[int, int]] = {}
        for im in inventory_models():
            objs = list(design.objects[im.name].values())
            if not objs:
                new_id[im.name] = {}
                continue
            maps = []
            for f in im.fields:
                if f.related_model is Campus:
                    maps.append(("campus", None))
                elif f.is_relation and f.related_model._meta.model_name in new_id:
                    maps.append(("ref", new_id[f.related_model._meta.model_name]))
                else:
                    maps.append(("keep", None))
            rows = []
            for obj in objs:
                row = {}
                for f, (how, ids), v in zip(im.fields, maps, obj.row, strict=True):
                    if how == "campus":
                        v = branch.pk
                    elif how == "ref" and v is not None:
                        v = ids[v]
                    row[f.attname] = v
                rows.append(row)
            ids = _write_rows(im.model, rows, return_ids=im.model in referenced)
            new_id[im.name] = dict(zip((o.id for o in objs), ids, strict=False))
            rows_written += len(objs)
            report(0.3 + 0.6 * rows_written / total_rows, f"copying {im.model._meta.verbose_name_plural}")
        report(0.9, "recording the branch point")
        BranchBase.objects.create(campus=branch, taken=now, fingerprints=design.fingerprints())
        report(1.0, "copied")
    return branch


# ---------------------------------------------------------------- merging


class MergeError(Exception):
    """A merge that cannot be applied; ``objects`` name what is in the way."""

    def __init__(self, message: str, objects: list[dict]):
        super().__init__(message)
        self.message = message
        self.objects = objects


class MergeConflict(MergeError):
    """The parent changed an object the branch changed too (HTTP 409)."""


class MergeInvalid(MergeError):
    """The merged parent would break an inventory rule (HTTP 400)."""


def _named(model: str, key: Key, reason: str, fields: dict | None = None) -> dict:
    out = {"model": model, "name": key_text(key), "reason": reason}
    if fields:
        out["fields"] = fields
    return out


@dataclass
class _Plan:
    add: dict[str, list[Key]] = field(default_factory=lambda: defaultdict(list))
    change: dict[str, list[Key]] = field(default_factory=lambda: defaultdict(list))
    remove: dict[str, list[Key]] = field(default_factory=lambda: defaultdict(list))

    def count(self) -> dict[str, int]:
        return {
            "added": sum(map(len, self.add.values())),
            "changed": sum(map(len, self.change.values())),
            "removed": sum(map(len, self.remove.values())),
        }


def _plan(base: dict, parent: Design, branch: Design) -> tuple[_Plan, list[dict]]:
    plan = _Plan()
    conflicts = []
    for model in model_names():
        b_fp = base.get(model, {})
        p_objs, r_objs = parent.objects.get(model, {}), branch.objects.get(model, {})
        p_fp = {key_text_id(k): o.fp for k, o in p_objs.items()}
        r_fp = {key_text_id(k): o.fp for k, o in r_objs.items()}
        keys = {key_text_id(k): k for k in (*p_objs, *r_objs)}
        for text in b_fp:
            keys.setdefault(text, ast.literal_eval(text))
        for text, key in sorted(keys.items()):
            b, p, r = b_fp.get(text), p_fp.get(text), r_fp.get(text)
            if r == b or p == r:
                continue
            if p != b:
                what = (
                    "removed on the parent"
                    if p is None
                    else "added on the parent too"
                    if b is None
                    else "changed on the parent"
                )
                conflicts.append(_named(model, key, f"{what} since the branch point"))
            elif r is None:
                plan.remove[model].append(key)
            elif b is None:
                plan.add[model].append(key)
            else:
                plan.change[model].append(key)
    return plan, conflicts


def _reference_conflicts(plan: _Plan, parent: Design, branch: Design) -> list[dict]:
    """Objects the merge would leave dangling: a branch object referring to one the parent removed, or a
    parent object (not touched by the branch) referring to one the branch removed."""
    removed = {(m, k) for m, keys in plan.remove.items() for k in keys}
    added = {(m, k) for m, keys in plan.add.items() for k in keys}
    conflicts = []
    for model in model_names():
        for key in [*plan.add.get(model, []), *plan.change.get(model, [])]:
            for ref_model, ref_key in branch.objects[model][key].refs:
                there = ref_key in parent.objects.get(ref_model, {}) or (ref_model, ref_key) in added
                if not there or (ref_model, ref_key) in removed:
                    conflicts.append(
                        _named(
                            model, key, f"refers to {ref_model} {key_text(ref_key)}, removed on the parent"
                        )
                    )
                    break
        touched = {*plan.change.get(model, []), *plan.remove.get(model, [])}
        for key, obj in parent.objects.get(model, {}).items():
            if key in touched:
                continue
            for ref_model, ref_key in obj.refs:
                if (ref_model, ref_key) in removed:
                    message = (
                        f"on the parent it refers to {ref_model} {key_text(ref_key)}, removed on the branch"
                    )
                    conflicts.append(_named(model, key, message))
                    break
    return conflicts


def _resolver(im: InventoryModel, branch: Design, parent_id: dict[str, dict[Key, int]], campus_id: int):
    """Turns a branch row into the parent's column values (references by natural key)."""
    plan = []
    for f in im.fields:
        rel = f.related_model
        if rel is Campus:
            plan.append((f, "campus", None))
        elif f.is_relation and rel._meta.model_name in branch.key_of:
            plan.append((f, "ref", rel._meta.model_name))
        else:
            plan.append((f, "keep", None))

    def values(obj: Obj) -> dict[str, Any]:
        out = {}
        for (f, how, model), v in zip(plan, obj.row, strict=True):
            if how == "campus":
                v = campus_id
            elif how == "ref" and v is not None:
                v = parent_id[model][branch.key_of[model][v]]
            out[f.attname] = v
        return out

    return values


def merge(branch_campus: Campus, user=None) -> dict:
    """Apply the branch's changes since its branch point to its parent, in one transaction.

    Raises ``MergeConflict`` (the parent changed the same objects, or the merge would leave a reference
    dangling) or ``MergeInvalid`` (the merged parent breaks an inventory rule: ``campus.integrity``, the
    same checks as every API write); either way nothing is written. Returns what was applied."""
    parent_campus = branch_campus.parent
    if parent_campus is None:
        raise ValueError("campus: this campus is not a branch (it has no parent).")
    reason = f'Merge of branch "{branch_campus.name}" (campus {branch_campus.pk})'
    token = _change_reason.set(reason)
    try:
        with transaction.atomic():
            locked = list(
                Campus.objects.select_for_update().filter(pk__in=[parent_campus.pk, branch_campus.pk])
            )
            if len(locked) != 2:
                raise ValueError("campus: the parent of this branch no longer exists.")
            base_row = BranchBase.objects.filter(campus=branch_campus).first()
            base = base_row.fingerprints if base_row is not None else {}
            parent = read_design(parent_campus.pk, with_refs=True)
            branch = read_design(branch_campus.pk, with_refs=True)
            plan, conflicts = _plan(base, parent, branch)
            if not conflicts:
                conflicts = _reference_conflicts(plan, parent, branch)
            if conflicts:
                raise MergeConflict(
                    f"The parent changed {len(conflicts)} object(s) the branch changed too.", conflicts
                )
            _apply(plan, parent, branch, parent_campus, user, reason)
            after = read_design(parent_campus.pk)
            stray = _unexpected(plan, parent, branch, after)
            if stray:
                raise MergeConflict("The merge would change objects the branch did not change.", stray)
            now = timezone.now()
            BranchBase.objects.update_or_create(
                campus=branch_campus, defaults={"taken": now, "fingerprints": branch.fingerprints()}
            )
            branch_campus.refresh_from_db()
            branch_campus.branched_at = now
            branch_campus._change_reason = f'Merged into "{parent_campus.name}" (campus {parent_campus.pk})'
            branch_campus.save()
            parent_campus.refresh_from_db()
            parent_campus._change_reason = reason
            parent_campus.save()
    finally:
        _change_reason.reset(token)
    return {"parent": parent_campus.pk, **plan.count()}


def _unexpected(plan: _Plan, parent: Design, branch: Design, after: Design) -> list[dict]:
    """Objects whose merged state is not what the plan says (a safety net over the reference checks)."""
    out = []
    for model in model_names():
        expected = {k: o.fp for k, o in parent.objects.get(model, {}).items()}
        for key in plan.remove.get(model, []):
            expected.pop(key, None)
        for key in [*plan.add.get(model, []), *plan.change.get(model, [])]:
            expected[key] = branch.objects[model][key].fp
        got = {k: o.fp for k, o in after.objects.get(model, {}).items()}
        for key in sorted(expected.keys() | got.keys(), key=key_text):
            if expected.get(key) != got.get(key):
                out.append(_named(model, key, "would not end as the branch or the parent has it"))
    return out


def _apply(plan: _Plan, parent: Design, branch: Design, parent_campus: Campus, user, reason: str) -> None:
    check = WriteCheck()
    parent_id: dict[str, dict[Key, int]] = {
        m: {k: o.id for k, o in objs.items()} for m, objs in parent.objects.items()
    }
    # Removed objects nothing else on the parent still points at go first (so an added feed may take the
    # rack side a removed one held); the others after the changes have moved their referrers away.
    removed = {(m, k) for m, keys in plan.remove.items() for k in keys}
    held = set()
    for model, objs in parent.objects.items():
        for key, obj in objs.items():
            if (model, key) in removed:
                continue
            held.update(r for r in obj.refs if r in removed)
    changed_again = True
    while changed_again:  # a removed object referring to a held one is held too
        changed_again = False
        for model, key in removed - held:
            if any(r in held for r in parent.objects[model][key].refs):
                held.add((model, key))
                changed_again = True
    noted: dict[tuple[str, int], tuple[str, Key]] = {}

    def delete(keys_of_model: dict[str, list[Key]]) -> None:
        for im in reversed(inventory_models()):
            ids = [parent_id[im.name][k] for k in keys_of_model.get(im.name, [])]
            if not ids:
                continue
            for obj in im.model.objects.filter(pk__in=ids):
                check.note(obj)
                noted[(obj._meta.label_lower, obj.pk)] = (im.name, parent.key_of[im.name][obj.pk])
            im.model.objects.filter(pk__in=ids).delete()

    first = {m: [k for k in keys if (m, k) not in held] for m, keys in plan.remove.items()}
    later = {m: [k for k in keys if (m, k) in held] for m, keys in plan.remove.items()}
    delete(first)

    if CAMPUS in plan.change:
        record_baselines([Campus.objects.get(pk=parent_campus.pk)])
        values = branch.objects[CAMPUS][()].values
        for f, v in zip(campus_fields(), values, strict=True):
            setattr(parent_campus, f.attname, v)
        parent_campus._change_reason = reason
        parent_campus.full_clean(validate_unique=False)
        parent_campus.save()

    written: list[tuple[InventoryModel, list[int]]] = []
    for im in inventory_models():
        to_add, to_change = plan.add.get(im.name, []), plan.change.get(im.name, [])
        if not (to_add or to_change):
            continue
        resolve = _resolver(im, branch, parent_id, parent_campus.pk)
        ids = []
        if to_add:
            objs = [im.model(**resolve(branch.objects[im.name][k])) for k in to_add]
            if im.history:
                created = bulk_create_with_history(
                    objs, im.model, default_user=user, default_change_reason=reason
                )
            else:
                created = im.model.objects.bulk_create(objs)
            for key, obj in zip(to_add, created, strict=True):
                parent_id[im.name][key] = obj.pk
                noted[(im.model._meta.label_lower, obj.pk)] = (im.name, key)
                ids.append(obj.pk)
        if to_change:
            current = im.model.objects.in_bulk([parent_id[im.name][k] for k in to_change])
            if im.history:  # the state before the merge, as an API change records it first
                record_baselines(list(current.values()))
            objs = []
            for key in to_change:
                obj = current[parent_id[im.name][key]]
                check.note(obj)
                for attname, v in resolve(branch.objects[im.name][key]).items():
                    setattr(obj, attname, v)
                objs.append(obj)
                noted[(im.model._meta.label_lower, obj.pk)] = (im.name, key)
                ids.append(obj.pk)
            names = [f.name for f in im.fields]  # the manager's bulk_update adds last_updated
            if im.history:
                bulk_update_with_history(
                    objs, im.model, names, batch_size=500, default_user=user, default_change_reason=reason
                )
            else:
                im.model.objects.bulk_update(objs, names, batch_size=500)
        written.append((im, ids))
    delete(later)
    problems = _problems(written, check, noted)
    if problems:
        raise MergeInvalid(f"The merged parent would break {len(problems)} rule(s).", problems)


def _problems(written, check: WriteCheck, noted: dict) -> list[dict]:
    """The rules every API write keeps, on the merged state: each written object's own rules (the model's
    field validators and ``clean()``, with the neighbour rules left to ``WriteCheck``), then ``WriteCheck``
    (power loops, overlapping racks, whole rack-scale domains)."""
    out = []
    for im, ids in written:
        for obj in im.model.objects.filter(pk__in=ids):
            model, key = noted[(obj._meta.label_lower, obj.pk)]
            obj._in_bulk = True
            errors: dict[str, list[str]] = {}
            references = [f.name for f in im.fields if f.is_relation]  # resolved by key, never dangling
            for step in (lambda o=obj, r=references: o.clean_fields(exclude=r), obj.clean):
                try:
                    step()
                except ValidationError as exc:
                    for name, messages in exc.message_dict.items():
                        errors.setdefault(name, []).extend(messages)
            if errors:
                out.append(_named(model, key, "breaks an inventory rule", errors))
            check.note(obj)
    for problem in check.problems():
        model, key = noted.get(problem.obj, (problem.obj[0].split(".")[-1], (str(problem.obj[1]),)))
        out.append(_named(model, key, "breaks an inventory rule", {problem.field: [problem.message]}))
    return out
