"""``python -m services.api``: serve the tool API on settings.api_host:api_port, refusing unsafe setups."""

from __future__ import annotations

import uvicorn

from sentinel.settings import Settings
from services.api.app import create_app


def main() -> None:
    settings = Settings()  # this entry's one door to configuration: everything below is handed it
    uvicorn.run(create_app(settings), host=settings.api_host, port=settings.api_port, log_config=None, access_log=False)


if __name__ == "__main__":
    main()
