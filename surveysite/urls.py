from django.contrib import admin
from django.contrib.auth.views import LoginView
from django.urls import include, path

from surveys.views.pages import limit_sign_in

urlpatterns = [
    path("admin/login/", limit_sign_in(admin.site.login)),
    path("admin/", admin.site.urls),
    path("accounts/login/", limit_sign_in(LoginView.as_view()), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("surveys.urls")),
]
