"""What a command prints through logging: each record once, this tool's and the libraries'."""
import subprocess
import sys
import textwrap


def test_a_library_warning_is_printed_once_not_twice(tmp_path):
    """datasets and huggingface_hub give their loggers a stream handler of their own and leave them
    propagating to the root, where the command's handler printed each of their warnings again (a Hub
    dataset's retries came out as two lines each). Run as a user's command runs: a fresh process whose
    root logger the command configures."""
    script = textwrap.dedent("""
        import logging, sys
        import datasets, huggingface_hub.utils.logging  # their loggers get their own handlers here
        from pipeline.cli.main import main
        assert main(["config", "show"]) == 0
        for name, text in [("datasets.load", "W-datasets"), ("huggingface_hub.file_download", "W-hub"),
                           ("rlaif", "W-ours"), ("pipeline.store.dist", "W-module"),
                           ("urllib3.connectionpool", "W-urllib3")]:
            logging.getLogger(name).warning(text)
        logging.getLogger("rlaif").info("I-ours")   # run.log_level=INFO: ours said, torch's internals not
        logging.getLogger("torch._subclasses.fake_tensor").info("I-torch")
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    for text in ("W-datasets", "W-hub", "W-ours", "W-module", "W-urllib3"):
        assert out.stderr.count(text) == 1, (text, out.stderr)
    assert "WARNING W-ours" in out.stderr   # ours keep the command's format
    assert "INFO I-ours" in out.stderr and "I-torch" not in out.stderr
