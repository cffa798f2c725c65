"""Django's Redis cache backend, reusing one `redis.Redis` client per connection pool.

Django builds a new `redis.Redis` around its pool for every cache call, and redis-py 8 fills some 170
response callbacks into each new client: about 0.3 ms of CPU, more than the round trip to Redis itself,
paid twice on every public poll. The client is thread-safe and holds no state of its own beyond the pool
(which redis-py resets after a fork), so one per pool serves every call.
"""

from django.core.cache.backends import redis as django_redis


class _Client(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _Client
