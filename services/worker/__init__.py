"""The Celery worker and beat: run the maintenance pass nightly, on demand, one at a time across workers."""
