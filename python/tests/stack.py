"""The API the tests run against: the one named by SOCIAL_DATA_API_URL (test/gateway/python/sdk.test.ts starts
it and hands it over), or else the local stack started here, once, as `tsx test/gateway/python/stack.ts`
(DynamoDB Local, the replay upstream, the local gateway), stopped when the tests end."""
from __future__ import annotations

import atexit
import json
import os
import subprocess
from pathlib import Path
from typing import Dict, Optional

ROOT = Path(__file__).resolve().parents[2]
MARKER = "SOCIAL_DATA_TEST_ENV "
_started: Optional[subprocess.Popen] = None


def environment() -> Dict[str, str]:
    global _started
    if os.environ.get("SOCIAL_DATA_API_URL") and os.environ.get("SOCIAL_DATA_TEST_CALLS"):
        return dict(os.environ)
    if _started is None:
        tsx = ROOT / "node_modules" / ".bin" / "tsx"
        if not tsx.exists():
            raise RuntimeError(f"{tsx} is missing: run `npm ci` in {ROOT} first (the tests start the local stack with it)")
        env = {**os.environ, "POWERTOOLS_LOG_LEVEL": "SILENT", "POWERTOOLS_METRICS_DISABLED": "true", "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED": "true"}
        _started = subprocess.Popen([str(tsx), "test/gateway/python/stack.ts"], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        atexit.register(_stop)
        assert _started.stdout is not None
        for line in _started.stdout:
            if line.startswith(MARKER):
                os.environ.update(json.loads(line[len(MARKER):]))
                break
        else:
            raise RuntimeError(f"the local stack did not start (exit code {_started.wait()})")
    return dict(os.environ)


def _stop() -> None:
    if _started is not None and _started.poll() is None:
        assert _started.stdin is not None
        _started.stdin.close()
        try:
            _started.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _started.kill()
