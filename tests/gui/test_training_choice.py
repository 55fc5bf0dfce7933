"""The Train view's results lead with one plain sentence on the model used."""
from __future__ import annotations

from app.core.labels import PRESETS
from app.models.device import DeviceInfo
from app.project import Project
from app.services.runs import RECORD_VERSION, set_active_run
from app.services.schema import TrainConfig


def test_results_say_in_plain_words_which_model_is_used_and_why(qapp, tmp_path):
    """Issue 34 item 9: the reason read "no candidate reaches token recall >=
    0.990 on dev: ... best token F2"; a plain sentence now comes first and
    those terms are the details."""
    from app.gui.training_view import TrainingView
    row = {"name": "pruned[all]", "score": 0.85, "eligible": False, "precision": 0.86,
           "recall": 0.84, "f1": 0.85, "token": {"precision": 0.9, "recall": 0.892, "f1": 0.9}}
    reason = "no candidate reaches token recall >= 0.990 on dev: the privacy target is missed"
    with Project.create(tmp_path / "p.deid", list(PRESETS["hipaa"])) as project:
        run_id = project.start_run("train", TrainConfig(models=["crf"]).as_dict())
        project.finish_run(run_id, "done", {
            "version": RECORD_VERSION, "selected": "pruned[all]", "selection": {
                "best": "pruned[all]", "objective": "privacy", "target": 0.99,
                "reason": reason, "rows": [row]}})
        set_active_run(project, run_id)
        view = TrainingView(project, device_info=DeviceInfo(cpu_physical=2, cpu_logical=2))
        try:
            text = view.reason_label.text()
            assert text.startswith("<b>The model used from now on is pruned[all]: no model hid "
                                   "99% of the identifier words of the dev notes")
            assert text.index("without hiding too many ordinary words") < text.index("Details:")
            assert text.index("Details: pruned[all]") < text.index("privacy target is missed")
        finally:
            view.shutdown()
            view.close()
            view.deleteLater()
