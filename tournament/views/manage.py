"""(in progress)"""

urlpatterns = []
